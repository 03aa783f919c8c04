/**
 * Matching's decision, reading only (the rules are in matching.ts's header): for each line of a batch,
 * the order or slip line it pays, readies or proposes, or the exception it waits as.
 */
import { and, eq, inArray, or, sql } from 'drizzle-orm';
import { type PayinStatus, payin, slipLine, statementLine } from '../../../contract/machines.ts';
import { accountCurrency, paysByItself } from '../../../contract/statementSource.ts';
import type { Db } from '../../db/index.ts';
import {
  payinOrders,
  statementImports,
  statementLines,
  withdrawalSlipLines,
  withdrawalSlips,
} from '../../db/schema.ts';
import { inStates, statesSql } from '../../db/states.ts';
import { rowsOf } from '../../ledger/index.ts';
import { storedZone } from '../../lib/businessDay.ts';
import type { ExceptionKind, Line } from './matching.ts';

/** Open pay-in states: those a supplement may pay. */
const openStates = payin.from('supplement');
const openSql = statesSql(openStates);

interface UtrOrder {
  id: number;
  amount: number;
  paidAmount: number | null;
  status: PayinStatus;
  utr: string | null;
  payerUtr: string | null;
  receivingAccountId: number | null;
}

export type Outcome =
  | { kind: 'pay'; orderId: number }
  | { kind: 'confirm'; orderId: number }
  | { kind: 'ready'; orderId: number | null; slipLineId: number | null }
  | { kind: 'propose'; orderId: number }
  | { kind: 'except'; exception: ExceptionKind; orderId: number | null };

/** The imports of `lines` whose lines pay by themselves (the bank's feed). */
async function payingImports(tx: Db, lines: readonly Line[]): Promise<Set<number>> {
  const ids = [...new Set(lines.map((l) => l.importId))];
  const rows = await tx
    .select({ id: statementImports.id, source: statementImports.source })
    .from(statementImports)
    .where(inArray(statementImports.id, ids));
  return new Set(rows.filter((r) => paysByItself(r.source)).map((r) => r.id));
}

/**
 * What matching decides for each of `lines` (by line id), reading only: the orders and slip lines they
 * pay, ready, propose or name, and the exceptions. Lines not saved yet may carry ids of their own
 * (negative): `saveMatched` saves them in the state decided here.
 */
export async function planMatches(tx: Db, lines: readonly Line[]): Promise<Map<number, Outcome>> {
  const outcomes = new Map<number, Outcome>();
  // A line in another currency than its account's is kept and waits: it never pays or closes anything.
  const foreign = (l: Line) => l.currency !== null && l.currency !== accountCurrency;
  for (const l of lines)
    if (foreign(l)) outcomes.set(l.id, { kind: 'except', exception: 'currency', orderId: null });
  const credits = lines.filter((l) => l.direction === 'credit' && !foreign(l));
  const debits = lines.filter((l) => l.direction === 'debit' && !foreign(l));
  const plan: Plan = {
    outcomes,
    paying: await payingImports(tx, lines),
    taken: await namedElsewhere(tx, lines),
  };
  await planByUtr(tx, credits, plan);
  await planByAmount(
    tx,
    credits.filter((l) => !outcomes.has(l.id)),
    plan,
  );
  if (debits.length) await planDebits(tx, lines, debits, outcomes);
  return outcomes;
}

/** What the steps of one plan share. */
interface Plan {
  outcomes: Map<number, Outcome>;
  /** The imports whose lines pay by themselves (the bank's feed). */
  paying: Set<number>;
  /** Orders this call pays, readies or proposes, or another open line names: no second line takes them. */
  taken: Set<number>;
}

/** The orders the credits' UTRs name: by UTR the open ones may take, the ones that used one, and those a line proves already. */
async function utrOrders(tx: Db, credits: readonly Line[], utrs: readonly string[]) {
  const byUtr = new Map<string, UtrOrder[]>();
  const usedBy = new Map<string, UtrOrder>();
  const confirmed = new Set<number>();
  if (!utrs.length) return { byUtr, usedBy, confirmed };
  const accounts = [...new Set(credits.map((l) => l.accountId))];
  const cols = {
    id: payinOrders.id,
    amount: payinOrders.amount,
    paidAmount: payinOrders.paidAmount,
    status: payinOrders.status,
    utr: payinOrders.utr,
    payerUtr: payinOrders.payerUtr,
    receivingAccountId: payinOrders.receivingAccountId,
  };
  // One look-up for both: the orders holding a UTR (any account, any state), and the open orders of the
  // lines' accounts a payer named one on. The UTRs travel as one JSON parameter, not one each.
  const list = sql`array(select jsonb_array_elements_text(${JSON.stringify(utrs)}::jsonb))`;
  const found = await tx
    .select(cols)
    .from(payinOrders)
    .where(
      or(
        sql`${payinOrders.utr} = any(${list})`,
        and(
          sql`${payinOrders.payerUtr} = any(${list})`,
          inArray(payinOrders.receivingAccountId, accounts),
          sql`${payinOrders.status} in (${openSql})`,
        ),
      ),
    )
    .orderBy(payinOrders.id);
  const wanted = new Set(utrs);
  const onAccounts = new Set(accounts);
  const used = found.filter((o) => o.utr !== null && wanted.has(o.utr));
  for (const o of used) usedBy.set(o.utr!, o);
  const claimed = found.filter(
    (o) =>
      o.receivingAccountId !== null &&
      onAccounts.has(o.receivingAccountId) &&
      openStates.includes(o.status) &&
      ((o.payerUtr !== null && wanted.has(o.payerUtr)) || (o.utr !== null && wanted.has(o.utr))),
  );
  for (const o of claimed) {
    for (const u of new Set([o.utr, o.payerUtr])) {
      if (u && wanted.has(u)) byUtr.set(u, [...(byUtr.get(u) ?? []), o]);
    }
  }
  const usedIds = used.map((o) => o.id);
  if (usedIds.length) {
    const linked = await tx
      .select({ payinId: statementLines.payinId })
      .from(statementLines)
      .where(inArray(statementLines.payinId, usedIds));
    for (const l of linked) confirmed.add(l.payinId!);
  }
  return { byUtr, usedBy, confirmed };
}

/** Steps 1–2: credits by UTR. */
async function planByUtr(tx: Db, credits: readonly Line[], { outcomes, paying, taken }: Plan): Promise<void> {
  const utrs = [...new Set(credits.flatMap((l) => (l.utr ? [l.utr] : [])))];
  const { byUtr, usedBy, confirmed } = await utrOrders(tx, credits, utrs);
  const paidNow = new Map<string, UtrOrder>();
  for (const line of credits) {
    if (!line.utr) continue;
    const used = usedBy.get(line.utr) ?? paidNow.get(line.utr);
    const open = payin.can('supplement', used?.status ?? 'pending');
    if (used && !open) {
      // The UTR already paid an order (by its channel, a supplement or a force): never a second one. When
      // that order is on this account with this amount and no line yet, the line is its bank proof.
      const own = used.receivingAccountId === line.accountId;
      if (own && used.paidAmount === line.amount && payin.is('succeeded', used.status)) {
        if (!confirmed.has(used.id)) {
          confirmed.add(used.id);
          outcomes.set(line.id, { kind: 'confirm', orderId: used.id });
          continue;
        }
      }
      const exception = own && used.amount !== line.amount ? 'amount_mismatch' : 'unmatched';
      outcomes.set(line.id, { kind: 'except', exception, orderId: used.id });
      continue;
    }
    // An open order holding the UTR as its channel's is the only one it may pay.
    const claims = (used ? [used] : (byUtr.get(line.utr) ?? [])).filter(
      (o) => o.receivingAccountId === line.accountId && !taken.has(o.id),
    );
    if (!claims.length) {
      // Held by an open order elsewhere (another account, or a channel's): no order here may take it.
      if (used) outcomes.set(line.id, { kind: 'except', exception: 'unmatched', orderId: used.id });
      continue;
    }
    const same = claims.filter((o) => o.amount === line.amount);
    if (same.length === 1) {
      taken.add(same[0]!.id);
      if (!paying.has(line.importId)) {
        // A person's statement: the order waits for the line to be posted; no other line takes it.
        outcomes.set(line.id, { kind: 'ready', orderId: same[0]!.id, slipLineId: null });
        continue;
      }
      // A second line of the UTR (another reference) finds it used, as after this batch.
      paidNow.set(line.utr, { ...same[0]!, status: 'paid', paidAmount: line.amount });
      confirmed.add(same[0]!.id);
      outcomes.set(line.id, { kind: 'pay', orderId: same[0]!.id });
    } else if (same.length > 1) {
      outcomes.set(line.id, { kind: 'except', exception: 'ambiguous', orderId: null });
    } else {
      outcomes.set(line.id, { kind: 'except', exception: 'amount_mismatch', orderId: claims[0]!.id });
    }
  }
}

/** Steps 3–4: the credits left, by amount, within the order's life. */
async function planByAmount(tx: Db, rest: readonly Line[], { outcomes, taken }: Plan): Promise<void> {
  if (rest.length) {
    const candidates = await amountCandidates(tx, rest);
    for (const line of rest) {
      const fit = candidates.filter(
        (c) =>
          c.accountId === line.accountId &&
          c.amount === line.amount &&
          c.fromDay <= line.day &&
          line.day <= c.toDay &&
          !taken.has(c.id),
      );
      if (fit.length === 1) {
        taken.add(fit[0]!.id);
        outcomes.set(line.id, { kind: 'propose', orderId: fit[0]!.id });
      } else {
        const exception = fit.length ? 'ambiguous' : 'unmatched';
        outcomes.set(line.id, { kind: 'except', exception, orderId: null });
      }
    }
  }
}

/**
 * Debits: the waiting slip line of a slip paid from the line's account whose number the bank's
 * narration or reference carries. It only proposes: closing is the slip's own rule, by a person.
 */
async function planDebits(
  tx: Db,
  lines: readonly Line[],
  debits: readonly Line[],
  outcomes: Map<number, Outcome>,
): Promise<void> {
  if (debits.length) {
    const waiting = await tx
      .select({ line: withdrawalSlipLines, accountId: withdrawalSlips.accountId })
      .from(withdrawalSlipLines)
      .innerJoin(withdrawalSlips, eq(withdrawalSlips.id, withdrawalSlipLines.slipId))
      .where(
        and(
          inStates(withdrawalSlipLines.status, [slipLine.state.to_be_withdrawn]),
          inArray(withdrawalSlips.accountId, [...new Set(debits.map((d) => d.accountId))]),
          inArray(withdrawalSlipLines.amount, [...new Set(debits.map((d) => d.amount))]),
        ),
      );
    const claimed = await slipLinesNamedElsewhere(
      tx,
      lines,
      waiting.map((w) => w.line.id),
    );
    for (const line of debits) {
      const text = `${line.narration} ${line.reference ?? ''}`.toUpperCase();
      const fit = waiting
        .filter((w) => w.accountId === line.accountId)
        .map((w) => w.line)
        .filter(
          (w) =>
            w.amount === line.amount &&
            w.narration.trim() !== '' &&
            text.includes(w.narration.trim().toUpperCase()) &&
            !claimed.has(w.id),
        );
      if (fit.length === 1) {
        claimed.add(fit[0]!.id);
        outcomes.set(line.id, { kind: 'ready', orderId: null, slipLineId: fit[0]!.id });
      } else {
        outcomes.set(line.id, {
          kind: 'except',
          exception: fit.length ? 'ambiguous' : 'unmatched',
          orderId: null,
        });
      }
    }
  }
}

/**
 * Orders that open lines outside `lines` name already (ready or proposed): that line waits for a person
 * to take it, so no line of this batch proposes or readies the same order.
 */
async function namedElsewhere(tx: Db, lines: readonly Line[]): Promise<Set<number>> {
  const ids = lines.map((l) => l.id);
  const rows = rowsOf<{ id: string }>(
    await tx.execute(sql`
      select candidate_payin_id as id from statement_lines
      where status in (${statesSql(statementLine.sets.postable)}) and candidate_payin_id is not null
        and direction = 'credit'
        and account_id in (${sql.join(
          [...new Set(lines.map((l) => l.accountId))].map((a) => sql`${a}`),
          sql`, `,
        )})
        and id <> all(${`{${ids.join(',')}}`}::bigint[])`),
  );
  return new Set(rows.map((r) => Number(r.id)));
}

/** Of `slipLineIds`, those another open line outside `lines` proposes to close. */
async function slipLinesNamedElsewhere(
  tx: Db,
  lines: readonly Line[],
  slipLineIds: readonly number[],
): Promise<Set<number>> {
  if (!slipLineIds.length) return new Set();
  const ids = new Set(lines.map((l) => l.id));
  const rows = await tx
    .select({ id: statementLines.id, slipLineId: statementLines.candidateSlipLineId })
    .from(statementLines)
    .where(
      and(
        inStates(statementLines.status, statementLine.sets.open),
        inArray(statementLines.candidateSlipLineId, [...slipLineIds]),
      ),
    );
  return new Set(rows.filter((r) => !ids.has(r.id)).map((r) => r.slipLineId!));
}

interface Candidate {
  id: number;
  accountId: number;
  amount: number;
  /** The business days of the order's life: created, and the day after it expires (a late bank day). */
  fromDay: string;
  toDay: string;
}

/** The open pay-ins on the lines' accounts of their amounts whose life may cover their days. */
async function amountCandidates(tx: Db, lines: readonly Line[]): Promise<Candidate[]> {
  const out: Candidate[] = [];
  const byAccount = new Map<number, Line[]>();
  for (const l of lines) {
    const group = byAccount.get(l.accountId);
    if (group) group.push(l);
    else byAccount.set(l.accountId, [l]);
  }
  for (const [accountId, group] of byAccount) {
    const amounts = [...new Set(group.map((l) => l.amount))];
    const days = group.map((l) => l.day).sort();
    const rows = rowsOf<{ id: string; amount: string; from_day: string; to_day: string }>(
      await tx.execute(sql`
        with z as (select ${storedZone} as zone)
        select o.id, o.amount,
          (o.created_at at time zone z.zone)::date::text as from_day,
          ((o.expires_at at time zone z.zone)::date + 1)::text as to_day
        from payin_orders o, z
        where o.receiving_account_id = ${accountId}
          and o.amount in (${sql.join(
            amounts.map((a) => sql`${a}::bigint`),
            sql`, `,
          )})
          and o.status in (${openSql})
          and o.created_at < ((${days.at(-1)}::date + 1)::timestamp at time zone z.zone)
          and o.expires_at >= ((${days[0]}::date - 1)::timestamp at time zone z.zone)
        order by o.id`),
    );
    for (const r of rows) {
      out.push({
        id: Number(r.id),
        accountId,
        amount: Number(r.amount),
        fromDay: r.from_day,
        toDay: r.to_day,
      });
    }
  }
  return out;
}
