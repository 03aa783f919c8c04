import { eq, getTableColumns } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { formatMinor, ppmToPercent } from '../../../contract/money.ts';
import { bankAdapterName } from '../../channels/bank.ts';
import { manualBankAdapterName } from '../../channels/manualBank.ts';
import { sqlState } from '../../db/index.ts';
import { channels } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { invalidField } from '../../http/validation.ts';
import { changes } from '../../lib/redact.ts';
import { pagedList } from '../../list/engine.ts';
import { codeOrNameSearch } from '../../list/scope.ts';
import { checkLimits } from '../merchant/terms.ts';
import { channelUsable } from '../payin/routing.ts';

type Channel = typeof channels.$inferSelect;

const columns = getTableColumns(channels);
const defaults = {
  minAmount: Number(columns.minAmount.default),
  maxAmount: Number(columns.maxAmount.default),
};

/** What a channel looks like on the wire; credentials never leave the server, only whether there are any. */
function rowOf(c: Channel) {
  return {
    id: c.id,
    code: c.code,
    name: c.name,
    adapter: c.adapter,
    payinCostRate: ppmToPercent(c.payinCostPpm),
    payoutCostRate: ppmToPercent(c.payoutCostPpm),
    payoutCostFixed: formatMinor(c.payoutCostFixed),
    minAmount: formatMinor(c.minAmount),
    maxAmount: formatMinor(c.maxAmount),
    weight: c.weight,
    supportsPayin: c.supportsPayin,
    supportsPayout: c.supportsPayout,
    status: c.status,
    settings: c.settings,
    hasCredentials: c.credentials !== '',
    createdAt: c.createdAt.toISOString(),
  };
}

/** The fields the operation log compares (credentials only as a redacted marker). */
function audited(c: Channel) {
  // `code` is renamed: the trail redacts fields of that name (verification codes).
  const { id: _id, createdAt: _at, code, ...rest } = rowOf(c);
  return { channelCode: code, ...rest, credentials: c.credentials };
}

interface ChannelFields {
  name?: string;
  payinCostRate?: number;
  payoutCostRate?: number;
  payoutCostFixed?: number;
  minAmount?: number;
  maxAmount?: number;
  weight?: number;
  supportsPayin?: boolean;
  supportsPayout?: boolean;
  status?: 'active' | 'disabled';
  credentials?: Record<string, string>;
  settings?: Record<string, unknown>;
}

/** Credentials sealed with the server key; an empty set clears them. */
const sealCredentials = (deps: Pick<Deps, 'sealer'>, creds: Record<string, string>) =>
  Object.keys(creds).length ? deps.sealer.seal(JSON.stringify(creds)) : '';

function fieldsSet(deps: Pick<Deps, 'sealer'>, input: ChannelFields, old?: Channel) {
  const set: Partial<typeof channels.$inferInsert> = {};
  if (input.name !== undefined) set.name = input.name;
  if (input.payinCostRate !== undefined) set.payinCostPpm = input.payinCostRate;
  if (input.payoutCostRate !== undefined) set.payoutCostPpm = input.payoutCostRate;
  if (input.payoutCostFixed !== undefined) set.payoutCostFixed = input.payoutCostFixed;
  if (input.minAmount !== undefined) set.minAmount = input.minAmount;
  if (input.maxAmount !== undefined) set.maxAmount = input.maxAmount;
  if (input.weight !== undefined) set.weight = input.weight;
  if (input.supportsPayin !== undefined) set.supportsPayin = input.supportsPayin;
  if (input.supportsPayout !== undefined) set.supportsPayout = input.supportsPayout;
  if (input.status !== undefined) set.status = input.status;
  if (input.credentials !== undefined) set.credentials = sealCredentials(deps, input.credentials);
  // Settings are merged: changing the success rate keeps the delay.
  if (input.settings !== undefined) set.settings = { ...(old?.settings ?? {}), ...input.settings };
  return set;
}

const codeTaken = (code: string) =>
  new AppError(errno.conflict, { fields: [{ path: 'code', code: 'taken', message: code }] });

export const channelRoutes = [
  handle(endpoints.channel.list, async ({ input, tx }) => {
    const { page: rows, total: n } = await pagedList(
      tx,
      {
        query: tx.select().from(channels).$dynamic(),
        table: channels,
        ...codeOrNameSearch(channels, input.q),
      },
      input,
    );
    return { list: rows.map(rowOf), total: n, nextCursor: null };
  }),

  handle(endpoints.channel.create, async ({ input, tx, deps, req, audit }) => {
    // With SIMULATOR off a simulator channel would carry nothing (`channelUsable`): say so instead.
    if (!channelUsable(deps, { adapter: input.adapter }))
      throw invalidField(req.lang, 'adapter', 'validation.simulatorOff');
    checkLimits(input.minAmount ?? defaults.minAmount, input.maxAmount ?? defaults.maxAmount, req.lang);
    // A manual bank channel only sends payouts (on withdrawal slips): it is never offered a pay-in.
    const manualBank = input.adapter === manualBankAdapterName;
    const [taken] = await tx.select({ id: channels.id }).from(channels).where(eq(channels.code, input.code));
    if (taken) throw codeTaken(input.code);
    const now = deps.clock.now();
    let row: Channel | undefined;
    try {
      [row] = await tx
        .insert(channels)
        .values({
          code: input.code,
          adapter: input.adapter,
          name: input.name,
          ...fieldsSet(deps, input),
          ...(manualBank ? { supportsPayin: false } : {}),
          // A bank channel collects into receiving accounts: it sends no payouts.
          ...(input.adapter === bankAdapterName ? { supportsPayout: false } : {}),
          createdAt: now,
          updatedAt: now,
        })
        .returning();
    } catch (err) {
      if (sqlState(err) === '23505') throw codeTaken(input.code);
      throw err;
    }
    audit({ target: `channel:${row!.id}`, changes: changes({}, audited(row!)) });
    return { id: row!.id };
  }),

  handle(endpoints.channel.update, async ({ input, tx, deps, req, audit }) => {
    // The code and adapter are not in the update's schema: they never change (the simulator stays the simulator).
    const [old] = await tx.select().from(channels).where(eq(channels.id, input.id)).for('update');
    if (!old) throw new AppError(errno.notFound);
    audit({ target: `channel:${old.id}` });
    checkLimits(input.minAmount ?? old.minAmount, input.maxAmount ?? old.maxAmount, req.lang);
    if (old.adapter === manualBankAdapterName && input.supportsPayin === true)
      throw invalidField(req.lang, 'supportsPayin', 'validation.manualBankNoPayin');
    if (old.adapter === bankAdapterName && input.supportsPayout === true)
      throw invalidField(req.lang, 'supportsPayout', 'validation.bankNoPayout');
    const [row] = await tx
      .update(channels)
      .set({ ...fieldsSet(deps, input, old), updatedAt: deps.clock.now() })
      .where(eq(channels.id, old.id))
      .returning();
    const before = audited(old);
    const after = audited(row!);
    // Unchanged credentials are sealed again only when sent; compare what they open to.
    if (input.credentials !== undefined && openOr(deps, old.credentials) === openOr(deps, row!.credentials)) {
      after.credentials = before.credentials;
    }
    audit({ changes: changes(before, after) });
    return { ok: true as const };
  }),
];

function openOr(deps: Pick<Deps, 'sealer'>, sealed: string): string {
  if (!sealed) return '';
  try {
    return deps.sealer.open(sealed);
  } catch {
    return sealed;
  }
}
