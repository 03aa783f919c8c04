/**
 * Frozen receiving accounts (`accountFreeze.*`, docs/MONEY-BACK.md section 3), platform users only.
 * Recording takes the Google code and sets the account `frozen` with the holds in one transaction;
 * settling is the door `accountFreeze.settle` (contract/doors.ts): the Google code, a reason, never the
 * user who recorded it. Every write is in the operation log.
 */
import { and, desc, eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { accountFreeze } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import { accountFreezes } from '../../db/schema.ts';
import { AppError, found } from '../../http/errors.ts';
import { type Context, handle } from '../../http/handle.ts';
import { invalidField } from '../../http/validation.ts';
import { changes } from '../../lib/redact.ts';
import { pagedList } from '../../list/engine.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { linesOf, lockedAccount, openFreezeOf, recordFreeze, settleFreeze } from './service.ts';
import { freezeDetail, freezeRows } from './view.ts';

const { accountFreeze: api } = endpoints;

async function record({ input, user, tx, deps, req, audit }: Context<typeof api.record>) {
  audit({
    target: `receivingAccount:${input.accountId}`,
    detail: { amount: formatMinor(input.amount), reference: input.reference },
  });
  const now = deps.clock.now();
  const frozenAt = input.frozenAt ? new Date(input.frozenAt) : now;
  if (frozenAt > now) throw invalidField(req.lang, 'frozenAt', 'validation.notInFuture');
  const account = await lockedAccount(tx, input.accountId);
  if (await openFreezeOf(tx, account.id)) throw new AppError(errno.conflict);
  const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
  if (refused) return refused;
  const { freeze, lines } = await recordFreeze(
    tx,
    { accountId: account.id, amount: input.amount, reference: input.reference, frozenAt, note: input.note },
    user.id,
    now,
  );
  audit({
    target: `accountFreeze:${freeze.id}`,
    changes: changes({ status: account.status }, { status: 'frozen' }),
    detail: {
      receivingAccount: account.id,
      amount: formatMinor(freeze.amount),
      reference: freeze.reference,
      held: formatMinor(freeze.held),
      unheld: formatMinor(freeze.unheld),
      unattributed: formatMinor(freeze.unattributed),
      merchants: lines.map((l) => l.merchantId),
    },
  });
  return await freezeDetail(tx, freeze, lines);
}

async function list({ input, tx }: Context<typeof api.list>) {
  const { page, ...rest } = await pagedList(
    tx,
    {
      query: tx.select().from(accountFreezes).$dynamic(),
      table: accountFreezes,
      where: and(
        input.accountId ? eq(accountFreezes.receivingAccountId, input.accountId) : undefined,
        input.status ? eq(accountFreezes.status, input.status) : undefined,
      ),
      orderBy: [desc(accountFreezes.createdAt), desc(accountFreezes.id)],
    },
    input,
  );
  return { list: await freezeRows(tx, page), ...rest };
}

async function info({ input, tx }: Context<typeof api.info>) {
  const [freeze] = await tx.select().from(accountFreezes).where(eq(accountFreezes.id, input.id));
  return await freezeDetail(tx, found(freeze), await linesOf(tx, input.id));
}

async function settle({ input, user, tx, deps, req, audit }: Context<typeof api.settle>) {
  const described = {
    released: formatMinor(input.released),
    writtenOff: formatMinor(input.writtenOff),
    reason: input.reason,
  };
  audit({ target: `accountFreeze:${input.id}`, detail: described });
  const [seen] = await tx.select().from(accountFreezes).where(eq(accountFreezes.id, input.id));
  const freeze = found(seen);
  if (!accountFreeze.can('settle', freeze.status)) throw new AppError(errno.conflict);
  if (freeze.recordedBy === user.id) throw new AppError(errno.sameUser);
  if (input.released + input.writtenOff !== freeze.amount)
    throw invalidField(req.lang, 'writtenOff', 'validation.freezeOutcome', {
      amount: formatMinor(freeze.amount),
    });
  const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
  if (refused) return refused;
  const done = await settleFreeze(
    tx,
    freeze.id,
    { released: input.released, writtenOff: input.writtenOff, reason: input.reason },
    user.id,
    deps.clock.now(),
  );
  audit({
    changes: changes({ status: freeze.status }, { status: done.freeze.status }),
    detail: {
      ...described,
      lines: done.lines.map((l) => ({
        merchantId: l.merchantId,
        released: formatMinor(l.released ?? 0),
        writtenOff: formatMinor(l.writtenOff ?? 0),
      })),
    },
  });
  return await freezeDetail(tx, done.freeze, done.lines);
}

export const accountFreezeRoutes = [
  handle(api.record, record),
  handle(api.list, list),
  handle(api.info, info),
  handle(api.settle, settle),
];
