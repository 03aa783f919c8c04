/**
 * Merchants' names beside their codes in the platform's lists (issue 28), from one place: a cell asks for
 * its code while it renders, the codes one page asks for are gathered for a moment and looked up with
 * `GET /merchant/names` in batches of at most a hundred, and the names stay for the page's life, every
 * screen sharing them. Only a user who may call the endpoint asks (a merchant user's lists show no
 * merchant); a code the lookup does not know is not asked again, a failed batch is asked again later.
 */
import { useStore } from '@nanostores/react';
import { map } from 'nanostores';
import { merchantCode, merchantNamesBatch } from '../../contract/endpoints/merchant.ts';
import { allows, endpoints, errno } from '../../contract/index.ts';
import { api } from './api.ts';
import { $grants, $user } from './session.ts';

/** The names known so far, by code. */
export const $merchantNames = map<Record<string, string>>({});

/** Codes asked for and not answered yet, and codes asked for already (answered or on their way). */
let waiting = new Set<string>();
let asked = new Set<string>();
/** Long enough to gather the cells of one page, even when it renders in slices. */
const gatherMs = 10;

async function lookUp(codes: string[]): Promise<void> {
  const round = asked;
  try {
    const { list } = await api(
      endpoints.merchant.names,
      { codes },
      { quiet: [errno.invalid, errno.forbidden] },
    );
    // Answered for a session that has ended since: dropped.
    if (round !== asked) return;
    for (const { code, name } of list) $merchantNames.setKey(code, name);
  } catch {
    if (round === asked) for (const code of codes) asked.delete(code);
  }
}

/** Sends what was gathered, a batch at a time. */
function send(): void {
  const codes = [...waiting];
  waiting = new Set();
  for (let i = 0; i < codes.length; i += merchantNamesBatch)
    void lookUp(codes.slice(i, i + merchantNamesBatch));
}

/** Asks for a code's name, once; the answer lands in `$merchantNames`. */
export function askMerchantName(code: string): void {
  if (asked.has(code) || !merchantCode.safeParse(code).success) return;
  if (!allows($grants.get(), [endpoints.merchant.names])) return;
  asked.add(code);
  waiting.add(code);
  // The first code of a gathering sends them all a moment later.
  if (waiting.size === 1) setTimeout(send, gatherMs);
}

/** The merchant's name for a code, once known; asked for on first sight. */
export function useMerchantName(code: string | null | undefined): string | undefined {
  // Re-rendered when this code's name arrives, not when another's does.
  const names = useStore($merchantNames, { keys: [code ?? ''], deps: [code] });
  if (!code) return undefined;
  askMerchantName(code);
  return names[code];
}

/** Another user signs in on this page: it starts from nothing. */
let userId: number | undefined;
$user.listen((user) => {
  if (user?.id === userId) return;
  userId = user?.id;
  asked = new Set();
  waiting = new Set();
  $merchantNames.set({});
});
