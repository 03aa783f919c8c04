/**
 * The platform parameters (contract/endpoints/parameter.ts): listed with their defaults, changed one at a
 * time with the caller's Google code and logged before/after. Readers read the table per use (or keep it
 * while the change feed stands still), so a change applies to the next request in every server process.
 * A new business time zone rebuilds the daily rollups in the same transaction, so no row mixes two zones.
 */
import { inArray, sql } from 'drizzle-orm';
import type { ParameterRow } from '../../../contract/endpoints/parameter.ts';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import {
  fromWire,
  invalidMessage,
  isParameterKey,
  needsFourEyes,
  type ParameterKey,
  parameterDefs,
  parameterKeys,
  toWire,
} from '../../../contract/parameters.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/index.ts';
import { parameters } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { handle } from '../../http/handle.ts';
import { invalidField } from '../../http/validation.ts';
import { rowsOf } from '../../ledger/index.ts';
import { parameterDefault, parameterOf } from '../../lib/parameters.ts';
import { approvalRequested, onApproved, pendingApproval, requestApproval } from '../approval/service.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { rebuildOrderStats, storedOrderStatsZone } from '../dashboard/stats.ts';

type Stored = { value: unknown; updatedAt: Date } | undefined;

function rowOf(key: ParameterKey, stored: Stored, config: Pick<Config, 'businessTimeZone'>): ParameterRow {
  return {
    key,
    kind: parameterDefs[key].kind,
    value: toWire(key, parameterOf(key, stored?.value, config)),
    default: toWire(key, parameterDefault(key, config)),
    set: stored !== undefined,
    updatedAt: stored?.updatedAt.toISOString() ?? null,
  };
}

async function storedOf(tx: Db, keys: readonly ParameterKey[]) {
  const rows = await tx
    .select({ key: parameters.key, value: parameters.value, updatedAt: parameters.updatedAt })
    .from(parameters)
    .where(inArray(parameters.key, [...keys]));
  return new Map(rows.map((r) => [r.key, r]));
}

export const parameterRoutes = [
  handle(endpoints.parameter.list, async ({ tx, deps }) => {
    const stored = await storedOf(tx, parameterKeys);
    const list = parameterKeys.map((key) => rowOf(key, stored.get(key), deps.config));
    return { list, total: list.length, nextCursor: null };
  }),

  handle(endpoints.parameter.update, async ({ input, user, tx, deps, req, audit }) => {
    const key = input.key;
    audit({ target: `parameter:${key}` });
    if (!isParameterKey(key)) throw invalidField(req.lang, 'key', 'parameters.invalid.key');
    // Checked before the code, so a typo does not spend it.
    const value = fromWire(key, input.value);
    if (value === undefined) throw invalidField(req.lang, 'value', ...invalidMessage(key));
    if (key === 'business_time_zone') {
      // The zone must be one the database can cut days in, not only one the runtime knows.
      const [known] = rowsOf<{ n: number }>(
        await tx.execute(sql`select count(*)::int as n from pg_timezone_names where name = ${value}`),
      );
      if (!known?.n) throw invalidField(req.lang, 'value', ...invalidMessage(key));
    }
    // A new zone: writers bucket by the stored zone, so they are held off until the rollups and the zone
    // commit together. Taken before the code is spent: no single order of these locks suits every
    // writer (a pay-in's triggers and stats come before its ledger posting, a payout's hold posting before
    // its stats), so a deadlock can end this transaction here, and its retry must find the code unspent.
    // The rollups in a pay-in writer's order of first touch: triggers, order stats, ledger.
    const rebuild = key === 'business_time_zone' && (await storedOrderStatsZone(tx)) !== value;
    if (rebuild)
      await tx.execute(
        sql`lock table payin_pay_time_daily, reconciliation_daily, order_stats_daily, ledger_daily in share row exclusive mode`,
      );
    // While a second person is asked about this parameter, nobody changes it by hand meanwhile.
    if (await pendingApproval(tx, parameterRefType, key)) throw new AppError(errno.approvalPending);
    const refusal = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refusal) return refusal;

    const before = parameterOf(key, (await storedOf(tx, [key])).get(key)?.value, deps.config);
    if (needsFourEyes(key, before, value)) {
      // A change that weakens a control (a higher threshold, a second factor switched off) is itself
      // a maker–checker decision: it waits for a second platform user.
      const request = await requestApproval(
        deps,
        tx,
        {
          action: 'parameter.update',
          refType: parameterRefType,
          refId: key,
          merchantId: null,
          currency: '',
          amount: parameterDefs[key].kind === 'money' ? Number(value) : 0,
          payload: { key, before: toWire(key, before), value: toWire(key, value) },
          reason: `${key}: ${JSON.stringify(toWire(key, before))} → ${JSON.stringify(toWire(key, value))}`,
        },
        user.id,
      );
      return approvalRequested(audit, request, { value: toWire(key, value) });
    }
    const saved = await saveParameter(deps, tx, key, value, rebuild);
    if (rebuild) audit({ detail: { rollupsRebuilt: true } });
    audit({ changes: { [key]: { before: toWire(key, before), after: toWire(key, value) } } });
    return rowOf(key, saved, deps.config);
  }),
];

/** The approvals' name for a parameter (its key is the request's object). */
const parameterRefType = 'parameter';

/** Stores a checked value (and rebuilds the rollups in a new business time zone, under the caller's locks). */
async function saveParameter(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  key: ParameterKey,
  value: unknown,
  rebuild: boolean,
): Promise<{ value: unknown; updatedAt: Date }> {
  const [saved] = await tx
    .insert(parameters)
    .values({ key, value, updatedAt: deps.clock.now() })
    .onConflictDoUpdate({ target: parameters.key, set: { value, updatedAt: deps.clock.now() } })
    .returning({ value: parameters.value, updatedAt: parameters.updatedAt });
  if (rebuild) await rebuildOrderStats(tx, value as string);
  return saved!;
}

// A change that weakens a control applies when a second platform user approves it, as it was asked.
onApproved('parameter.update', async (deps, tx, request) => {
  const { key, value: wire } = request.payload as { key: string; value: unknown };
  if (!isParameterKey(key)) throw new AppError(errno.notFound);
  const value = fromWire(key, wire);
  if (value === undefined) throw new AppError(errno.conflict, null, 'value no longer valid');
  const before = parameterOf(key, (await storedOf(tx, [key])).get(key)?.value, deps.config);
  await saveParameter(deps, tx, key, value, false);
  return { changes: { [key]: { before: toWire(key, before), after: toWire(key, value) } } };
});
