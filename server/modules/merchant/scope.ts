/**
 * Tenancy for the merchant money areas: which merchant a call is about. A merchant user always acts on
 * its own merchant (the request's id is never used to pick another); a platform user names one.
 */
import { eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import type { Db } from '../../db/index.ts';
import { merchants } from '../../db/schema.ts';
import { broadestPrefix, whitelistEntry } from '../../gateway/ip.ts';
import { AppError } from '../../http/errors.ts';
import { type Lang, t } from '../../http/i18n.ts';
import type { SessionUser } from '../../http/session.ts';
import { invalidField } from '../../http/validation.ts';

export type Merchant = typeof merchants.$inferSelect;

/**
 * The merchant id a call is about.
 * - Merchant users: their own. On writes (`write: true`) an id naming another merchant is refused
 *   with 404, so a request meant for someone else never lands on the caller's own merchant by surprise;
 *   on reads the id is ignored (the contract says so for `merchant.info`).
 * - Platform users: the id given, or 422 when it is missing.
 */
export function targetMerchantId(
  user: SessionUser,
  requested: number | undefined,
  opts: { lang: Lang; field?: string; write?: boolean },
): number {
  if (user.kind === 'merchant') {
    const own = user.merchantId!;
    if (opts.write && requested !== undefined && requested !== own) throw new AppError(errno.notFound);
    return own;
  }
  if (requested === undefined)
    throw invalidField(opts.lang, opts.field ?? 'id', 'validation.required', undefined, 'required');
  return requested;
}

/** The merchant row, or 404; `lock` takes a row lock for a read-modify-write. */
export async function loadMerchant(tx: Db, id: number, lock = false): Promise<Merchant> {
  const q = tx.select().from(merchants).where(eq(merchants.id, id));
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw new AppError(errno.notFound);
  return row;
}

/**
 * The whitelist as stored: every entry a real address or network no broader than a /16 (IPv4) or /32
 * (IPv6), IPv4-mapped IPv6 in IPv4 form, duplicates dropped. Otherwise 422 naming every refused entry.
 */
export function checkedWhitelist(list: readonly string[], lang: Lang, field = 'payoutIpWhitelist'): string[] {
  const fields: { path: string; code: string; message: string }[] = [];
  const kept: string[] = [];
  list.forEach((raw, i) => {
    const entry = whitelistEntry(raw);
    if (entry.ok) kept.push(entry.text);
    else if (entry.reason === 'tooBroad')
      fields.push({
        path: `${field}.${i}`,
        code: 'too_broad',
        message: t(lang, 'validation.ipTooBroad', { v4: broadestPrefix[4], v6: broadestPrefix[6] }),
      });
    else fields.push({ path: `${field}.${i}`, code: 'custom', message: t(lang, 'validation.ip') });
  });
  if (fields.length) throw new AppError(errno.invalid, { fields });
  return [...new Set(kept)];
}
