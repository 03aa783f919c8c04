/** Freezes as the console shows them: the account's label, the users' names, the lines' merchants. */
import { inArray } from 'drizzle-orm';
import type * as z from 'zod/mini';
import type { accountFreezeLine, accountFreezeRow } from '../../../contract/endpoints/accountFreeze.ts';
import { accountLabel } from '../../../contract/endpoints/receiving.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { accountFreezeLines, merchants, receivingAccounts, users } from '../../db/schema.ts';
import type { Freeze, FreezeLine } from './service.ts';

type Row = z.output<typeof accountFreezeRow>;
type Line = z.output<typeof accountFreezeLine>;

const money = (v: number | null) => (v === null ? null : formatMinor(v));

async function byId<T extends { id: number }>(rows: Promise<T[]>): Promise<Map<number, T>> {
  return new Map((await rows).map((r) => [r.id, r]));
}

/** The freezes' rows, with two small queries for their accounts and users and one for their lines' count. */
export async function freezeRows(tx: Db, freezes: readonly Freeze[]): Promise<Row[]> {
  if (!freezes.length) return [];
  const accounts = await byId(
    tx
      .select({
        id: receivingAccounts.id,
        kind: receivingAccounts.kind,
        bankName: receivingAccounts.bankName,
        accountNumber: receivingAccounts.accountNumber,
      })
      .from(receivingAccounts)
      .where(inArray(receivingAccounts.id, [...new Set(freezes.map((f) => f.receivingAccountId))])),
  );
  const userIds = [...new Set(freezes.flatMap((f) => [f.recordedBy, ...(f.settledBy ? [f.settledBy] : [])]))];
  const names = await byId(
    tx.select({ id: users.id, username: users.username }).from(users).where(inArray(users.id, userIds)),
  );
  const lines = await tx
    .select({ freezeId: accountFreezeLines.freezeId })
    .from(accountFreezeLines)
    .where(
      inArray(
        accountFreezeLines.freezeId,
        freezes.map((f) => f.id),
      ),
    );
  const nameOf = (id: number) => names.get(id)?.username ?? String(id);
  return freezes.map((f) => {
    const a = accounts.get(f.receivingAccountId);
    return {
      id: f.id,
      receivingAccountId: f.receivingAccountId,
      accountLabel: a ? accountLabel(a) : `#${f.receivingAccountId}`,
      accountKind: a?.kind ?? 'public',
      currency: f.currency,
      amount: formatMinor(f.amount),
      reference: f.reference,
      frozenAt: f.frozenAt.toISOString(),
      note: f.note,
      status: f.status,
      unattributed: formatMinor(f.unattributed),
      held: formatMinor(f.held),
      unheld: formatMinor(f.unheld),
      merchants: lines.filter((l) => l.freezeId === f.id).length,
      released: money(f.released),
      writtenOff: money(f.writtenOff),
      settleReason: f.settleReason,
      recordedBy: nameOf(f.recordedBy),
      createdAt: f.createdAt.toISOString(),
      settledBy: f.settledBy === null ? null : nameOf(f.settledBy),
      settledAt: f.settledAt?.toISOString() ?? null,
    };
  });
}

/** A freeze with its lines: whose money it holds. */
export async function freezeDetail(tx: Db, freeze: Freeze, lines: readonly FreezeLine[]) {
  const [row] = await freezeRows(tx, [freeze]);
  const found = lines.length
    ? await byId(
        tx
          .select({ id: merchants.id, code: merchants.code, name: merchants.name })
          .from(merchants)
          .where(inArray(merchants.id, [...new Set(lines.map((l) => l.merchantId))])),
      )
    : new Map<number, { code: string; name: string }>();
  const view = (l: FreezeLine): Line => ({
    id: l.id,
    merchantId: l.merchantId,
    merchantCode: found.get(l.merchantId)?.code ?? '',
    merchantName: found.get(l.merchantId)?.name ?? '',
    currency: l.currency,
    amount: formatMinor(l.amount),
    orderCount: l.orderCount,
    heldCollectionAvailable: formatMinor(l.heldCollectionAvailable),
    heldPayoutAvailable: formatMinor(l.heldPayoutAvailable),
    held: formatMinor(l.heldCollectionAvailable + l.heldPayoutAvailable),
    unheld: formatMinor(l.unheld),
    released: money(l.released),
    writtenOff: money(l.writtenOff),
  });
  return { ...row!, lines: [...lines].sort((a, b) => b.amount - a.amount || a.id - b.id).map(view) };
}
