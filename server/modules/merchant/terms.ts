/**
 * A merchant's terms between the wire (decimal strings, percentages, `D0`/`T3`) and the database
 * (minor units, parts per million, settlement days), plus the answer shape `merchantDetail`.
 */
import { and, asc, eq, getTableColumns, inArray } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { merchantDetail } from '../../../contract/endpoints/merchant.ts';
import { errno } from '../../../contract/errno.ts';
import { bpToPercent, formatMinor, ppmToPercent } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { agents, channels, merchantChannels, merchants } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import type { Lang } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';
import { agentNames, labelsOf } from '../../list/labels.ts';
import { checkedWhitelist, type Merchant } from './scope.ts';
import { maskSecret } from './service.ts';

/** `D0` → 0, `T3` → 3 (the contract's regex has already checked the form). */
export const cycleDays = (cycle: string): number => (cycle === 'D0' ? 0 : Number(cycle.slice(1)));
export const cycleOf = (days: number): string => (days === 0 ? 'D0' : `T${days}`);

/** `83.500000` → `83.5`, `0.000000` → `0`: the stored NUMERIC without padding. */
export function decimalOut(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** The terms as the wire shows them: what `merchant.info` answers and the operation log compares. */
export function termsOf(m: Merchant) {
  return {
    name: m.name,
    agentId: m.agentId,
    collectionRate: ppmToPercent(m.collectionRatePpm),
    platformFee: formatMinor(m.platformFee),
    payoutRate: ppmToPercent(m.payoutRatePpm),
    payoutFee: formatMinor(m.payoutFee),
    surcharge: ppmToPercent(m.surchargePpm),
    exchangeRate: decimalOut(m.exchangeRate),
    minAmount: formatMinor(m.minAmount),
    maxAmount: formatMinor(m.maxAmount),
    settlementCycle: cycleOf(m.settlementDays),
    settlementRate: ppmToPercent(m.settlementRatePpm),
    settlementFee: formatMinor(m.settlementFee),
    payoutIpWhitelist: m.payoutIpWhitelist,
    callbackUrl: m.callbackUrl,
    velocityPayinsPerDay: m.velocityPayinsPerDay,
    velocityAmountPerDay: m.velocityAmountPerDay === null ? null : formatMinor(m.velocityAmountPerDay),
    reservePercent: m.reserveBp === null ? null : bpToPercent(m.reserveBp),
    reserveDays: m.reserveDays,
  };
}

/** Terms as they arrive, already parsed: rates in ppm, amounts in minor units. */
export interface TermsInput {
  agentId?: number | null;
  collectionRate?: number;
  platformFee?: number;
  payoutRate?: number;
  payoutFee?: number;
  surcharge?: number;
  exchangeRate?: string;
  minAmount?: number;
  maxAmount?: number;
  settlementCycle?: string;
  settlementRate?: number;
  settlementFee?: number;
  payoutIpWhitelist?: string[];
  callbackUrl?: string;
  velocityPayinsPerDay?: number | null;
  velocityAmountPerDay?: number | null;
  /** Basis points (0: none). */
  reservePercent?: number | null;
  reserveDays?: number | null;
  channels?: { channelId: number; weight: number }[];
}

const columns = getTableColumns(merchants);
/** The limits a new merchant gets when the request leaves them out (the table's defaults). */
export const defaultLimits = {
  minAmount: Number(columns.minAmount.default),
  maxAmount: Number(columns.maxAmount.default),
};

/** The columns to write for the terms given; `undefined` fields are left alone. */
export function termsSet(input: TermsInput, lang: Lang): Partial<typeof merchants.$inferInsert> {
  const set: Partial<typeof merchants.$inferInsert> = {};
  if (input.agentId !== undefined) set.agentId = input.agentId;
  if (input.collectionRate !== undefined) set.collectionRatePpm = input.collectionRate;
  if (input.platformFee !== undefined) set.platformFee = input.platformFee;
  if (input.payoutRate !== undefined) set.payoutRatePpm = input.payoutRate;
  if (input.payoutFee !== undefined) set.payoutFee = input.payoutFee;
  if (input.surcharge !== undefined) set.surchargePpm = input.surcharge;
  if (input.exchangeRate !== undefined) set.exchangeRate = input.exchangeRate;
  if (input.minAmount !== undefined) set.minAmount = input.minAmount;
  if (input.maxAmount !== undefined) set.maxAmount = input.maxAmount;
  if (input.settlementCycle !== undefined) set.settlementDays = cycleDays(input.settlementCycle);
  if (input.settlementRate !== undefined) set.settlementRatePpm = input.settlementRate;
  if (input.settlementFee !== undefined) set.settlementFee = input.settlementFee;
  if (input.payoutIpWhitelist !== undefined)
    set.payoutIpWhitelist = checkedWhitelist(input.payoutIpWhitelist, lang);
  if (input.callbackUrl !== undefined) set.callbackUrl = input.callbackUrl;
  if (input.velocityPayinsPerDay !== undefined) set.velocityPayinsPerDay = input.velocityPayinsPerDay;
  if (input.velocityAmountPerDay !== undefined) set.velocityAmountPerDay = input.velocityAmountPerDay;
  if (input.reservePercent !== undefined) set.reserveBp = input.reservePercent || null;
  if (input.reserveDays !== undefined) set.reserveDays = input.reserveDays;
  return set;
}

/**
 * A rolling reserve is a share and days together, or neither: checked on the terms as they will be (the
 * request's over the stored ones), 422 naming the one missing.
 */
export function checkReserve(
  input: Pick<TermsInput, 'reservePercent' | 'reserveDays'>,
  stored: { reserveBp: number | null; reserveDays: number | null },
  lang: Lang,
): void {
  const bp = input.reservePercent !== undefined ? input.reservePercent || null : stored.reserveBp;
  const days = input.reserveDays !== undefined ? input.reserveDays : stored.reserveDays;
  if (bp !== null && days === null) throw invalidField(lang, 'reserveDays', 'validation.reserveDaysRequired');
  if (bp === null && days !== null)
    throw invalidField(lang, 'reservePercent', 'validation.reservePercentRequired');
}

/** max ≥ min, also when only one side changes and the other is the stored (or default) value. */
export function checkLimits(min: number, max: number, lang: Lang): void {
  if (max < min) throw invalidField(lang, 'maxAmount', 'validation.maxBelowMin');
}

/** The agent exists (or is null), else 404 naming the field. */
export async function checkAgent(tx: Db, agentId: number | null | undefined): Promise<void> {
  if (agentId === undefined || agentId === null) return;
  const [row] = await tx.select({ id: agents.id }).from(agents).where(eq(agents.id, agentId));
  if (!row)
    throw new AppError(errno.notFound, {
      fields: [{ path: 'agentId', code: 'not_found', message: String(agentId) }],
    });
}

/** Each channel listed once and existing; answers the assignments as given. */
export async function checkChannels(
  tx: Db,
  list: readonly { channelId: number; weight: number }[],
  lang: Lang,
): Promise<void> {
  const seen = new Set<number>();
  list.forEach((c, i) => {
    if (seen.has(c.channelId)) throw invalidField(lang, `channels.${i}.channelId`, 'validation.duplicate');
    seen.add(c.channelId);
  });
  if (!list.length) return;
  const found = await tx
    .select({ id: channels.id })
    .from(channels)
    .where(inArray(channels.id, [...seen]));
  const known = new Set(found.map((r) => r.id));
  const missing = list.findIndex((c) => !known.has(c.channelId));
  if (missing >= 0) {
    throw new AppError(errno.notFound, {
      fields: [
        {
          path: `channels.${missing}.channelId`,
          code: 'not_found',
          message: String(list[missing]!.channelId),
        },
      ],
    });
  }
}

/** Replaces a merchant's channel set; a channel kept keeps its enabled flag. */
export async function replaceChannels(
  tx: Db,
  merchantId: number,
  list: readonly { channelId: number; weight: number }[],
): Promise<void> {
  const old = await tx
    .select({ channelId: merchantChannels.channelId, enabled: merchantChannels.enabled })
    .from(merchantChannels)
    .where(eq(merchantChannels.merchantId, merchantId));
  const enabled = new Map(old.map((r) => [r.channelId, r.enabled]));
  await tx.delete(merchantChannels).where(eq(merchantChannels.merchantId, merchantId));
  if (list.length) {
    await tx.insert(merchantChannels).values(
      list.map((c) => ({
        merchantId,
        channelId: c.channelId,
        weight: c.weight,
        enabled: enabled.get(c.channelId) ?? true,
      })),
    );
  }
}

/** The channel set as the operation log compares it. */
export async function channelSetOf(tx: Db, merchantId: number) {
  const rows = await tx
    .select({ channelId: merchantChannels.channelId, weight: merchantChannels.weight })
    .from(merchantChannels)
    .where(eq(merchantChannels.merchantId, merchantId))
    .orderBy(asc(merchantChannels.channelId));
  return rows;
}

type Detail = z.output<typeof merchantDetail>;

/** A sealed secret shown masked; a secret the key cannot open shows as unreadable, not as an error. */
function masked(deps: Pick<Deps, 'sealer'>, sealed: string): string {
  if (!sealed) return '';
  try {
    return maskSecret(sealed, deps.sealer.open(sealed));
  } catch {
    return '…';
  }
}

/** `merchantDetail` for each row, with agent names and channel assignments fetched in two queries. */
export async function detailsOf(
  tx: Db,
  deps: Pick<Deps, 'sealer'>,
  rows: readonly Merchant[],
): Promise<Detail[]> {
  if (!rows.length) return [];
  const agentName = await labelsOf(
    tx,
    agentNames,
    rows.map((r) => r.agentId),
  );
  const links = await tx
    .select({
      merchantId: merchantChannels.merchantId,
      channelId: merchantChannels.channelId,
      code: channels.code,
      name: channels.name,
      weight: merchantChannels.weight,
      enabled: merchantChannels.enabled,
    })
    .from(merchantChannels)
    .innerJoin(channels, eq(channels.id, merchantChannels.channelId))
    .where(
      and(
        inArray(
          merchantChannels.merchantId,
          rows.map((r) => r.id),
        ),
      ),
    )
    .orderBy(asc(merchantChannels.channelId));
  return rows.map((m) => ({
    id: m.id,
    code: m.code,
    status: m.status,
    currency: m.currency,
    ...termsOf(m),
    agentName: m.agentId === null ? null : (agentName.get(m.agentId) ?? null),
    apiSecretMasked: masked(deps, m.apiSecret),
    webhookSecretMasked: masked(deps, m.webhookSecret),
    channels: links
      .filter((l) => l.merchantId === m.id)
      .map(({ channelId, code, name, weight, enabled }) => ({ channelId, code, name, weight, enabled })),
    createdAt: m.createdAt.toISOString(),
  }));
}

/** The constraint a unique violation broke, looking through the ORM's wrapper. */
export function violatedConstraint(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const name = (e as { constraint?: unknown }).constraint;
    if (typeof name === 'string') return name;
  }
  return undefined;
}
