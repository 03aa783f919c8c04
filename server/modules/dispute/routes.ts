/**
 * Disputes from the console (`dispute.*`, docs/MONEY-BACK.md section 2). A merchant user opens, reads,
 * adds evidence to and withdraws its own merchant's cases only (another's is 404), and opens complaints
 * and wrong payments, never chargebacks. Deciding is the door `dispute.decide` (contract/doors.ts): a
 * platform user who did not open the case, with the Google code and a reason; withdrawing is the door
 * `dispute.withdraw`: the opener's side (or the platform), with the Google code and a reason. Every write
 * is in the operation log.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { dispute } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { disputeEvidence, disputes, users } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import { AppError } from '../../http/errors.ts';
import { type Context, handle } from '../../http/handle.ts';
import type { SessionUser } from '../../http/session.ts';
import { invalidField } from '../../http/validation.ts';
import { wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { changes } from '../../lib/redact.ts';
import { pagedList } from '../../list/engine.ts';
import { merchantScope, tenantOf } from '../../list/scope.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { loadMerchant } from '../merchant/scope.ts';
import { orderFor } from '../payin/access.ts';
import { decodeImage, type ImageMime, readImage, storeImage } from '../payin/images.ts';
import { payeeOf } from '../refund/service.ts';
import {
  checkOpening,
  type Dispute,
  disputeRefType,
  heldOf,
  lockedOrder,
  loseDispute,
  openDispute,
  releaseDispute,
} from './service.ts';
import { disputeInfo, disputeRows } from './view.ts';

const { dispute: api } = endpoints;

/** Pieces of evidence a case holds at most. */
export const maxEvidence = 50;

/** A case the user may see, or 404. */
async function disputeFor(tx: Db, user: SessionUser, id: number, lock = false): Promise<Dispute> {
  const q = tx.select().from(disputes).where(eq(disputes.id, id));
  const [d] = lock ? await q.for('update') : await q;
  const tenant = tenantOf(user);
  if (!d || (tenant !== null && d.merchantId !== tenant)) throw new AppError(errno.notFound);
  return d;
}

/** Refuses early, with the clear 409, what the case's state does not allow. */
function allowed(d: Dispute, action: Parameters<typeof dispute.can>[0]) {
  if (!dispute.can(action, d.status)) throw new AppError(errno.conflict, null, `${action} from ${d.status}`);
}

const target = (d: Pick<Dispute, 'disputeNo'>) => `${disputeRefType}:${d.disputeNo}`;
const platform = (user: SessionUser) => user.kind === 'platform';

async function open({ input, user, tx, deps, req, audit, afterCommit }: Context<typeof api.open>) {
  const found = await orderFor(tx, user, { id: input.payinId }, req.lang);
  const ask = {
    kind: input.kind,
    amount: input.amount,
    deadline: new Date(input.deadline),
    reason: input.reason,
  };
  audit({
    target: `payin:${found.orderNo}`,
    detail: { kind: ask.kind, amount: formatMinor(ask.amount), deadline: input.deadline, reason: ask.reason },
  });
  const order = await lockedOrder(tx, found);
  await checkOpening(deps, tx, order, ask, user.kind, req.lang);
  const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
  if (refused) return refused;
  const d = await openDispute(deps, tx, order, ask, user.kind, user.id);
  audit({
    target: target(d),
    detail: {
      orderNo: d.orderNo,
      kind: d.kind,
      amount: formatMinor(d.amount),
      held: formatMinor(heldOf(d)),
      unheld: formatMinor(d.unheldAmount),
    },
  });
  afterCommit(wakeWebhookWorkers);
  return await disputeInfo(tx, d, platform(user), deps.clock.now());
}

async function list({ input, user, tx, deps }: Context<typeof api.list>) {
  const merchantId = merchantScope(user, input.merchantId, 'ignored');
  const { page, ...rest } = await pagedList(
    tx,
    {
      query: tx.select().from(disputes).$dynamic(),
      table: disputes,
      where: and(
        merchantId === undefined ? undefined : eq(disputes.merchantId, merchantId),
        input.status ? eq(disputes.status, input.status) : undefined,
        input.payinId ? eq(disputes.payinId, input.payinId) : undefined,
      ),
      // Open cases first, the nearest deadline (the overdue) first; then the ended ones newest first.
      orderBy: [
        sql`(not ${inStates(disputes.status, dispute.sets.open)})`,
        sql`case when ${inStates(disputes.status, dispute.sets.open)} then ${disputes.deadline} end asc`,
        desc(disputes.createdAt),
        desc(disputes.id),
      ],
    },
    input,
  );
  return { list: await disputeRows(tx, page, platform(user), deps.clock.now()), ...rest };
}

async function info({ input, user, tx, deps }: Context<typeof api.info>) {
  return await disputeInfo(tx, await disputeFor(tx, user, input.id), platform(user), deps.clock.now());
}

async function evidence({ input, user, tx, deps, req, audit }: Context<typeof api.evidence>) {
  const d = await disputeFor(tx, user, input.id, true);
  audit({ target: target(d), detail: { note: input.note, file: input.file?.filename ?? null } });
  allowed(d, 'work');
  if (!input.note && !input.file)
    throw invalidField(req.lang, 'note', 'validation.required', undefined, 'required');
  const [{ n } = { n: 0 }] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(disputeEvidence)
    .where(eq(disputeEvidence.disputeId, d.id));
  if (Number(n) >= maxEvidence)
    throw invalidField(req.lang, 'id', 'validation.evidenceCount', { max: maxEvidence });
  let file: { filename: string; path: string; mime: string; size: number } | null = null;
  if (input.file) {
    const bytes = decodeImage(input.file.mime, input.file.dataBase64);
    if (typeof bytes === 'string') throw invalidField(req.lang, 'file.dataBase64', bytes);
    const path = await storeImage(deps, `dispute-${d.id}`, input.file.mime as ImageMime, bytes);
    file = { filename: input.file.filename, path, mime: input.file.mime, size: bytes.length };
  }
  await tx.insert(disputeEvidence).values({
    disputeId: d.id,
    note: input.note,
    side: user.kind,
    userId: user.id,
    createdAt: deps.clock.now(),
    ...(file ?? {}),
  });
  return await disputeInfo(tx, d, platform(user), deps.clock.now());
}

async function evidenceFile({ input, user, tx, deps }: Context<typeof api.evidenceFile>) {
  const d = await disputeFor(tx, user, input.id);
  const [e] = await tx
    .select()
    .from(disputeEvidence)
    .where(and(eq(disputeEvidence.id, input.evidenceId), eq(disputeEvidence.disputeId, d.id)));
  if (!e?.path || !e.mime) throw new AppError(errno.notFound);
  const bytes = await readImage(deps, e.path).catch(() => null);
  if (!bytes) throw new AppError(errno.notFound, null, `evidence file ${e.path} missing`);
  return { filename: e.filename ?? '', mime: e.mime, dataBase64: bytes.toString('base64') };
}

async function assign({ input, user, tx, deps, req, audit }: Context<typeof api.assign>) {
  const d = await disputeFor(tx, user, input.id, true);
  allowed(d, 'work');
  if (input.ownerId !== null) {
    const [owner] = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, input.ownerId), eq(users.kind, 'platform'), eq(users.status, 'active')));
    if (!owner) throw invalidField(req.lang, 'ownerId', 'validation.disputeOwner');
  }
  audit({ target: target(d), changes: changes({ ownerId: d.ownerId }, { ownerId: input.ownerId }) });
  const [row] = await tx
    .update(disputes)
    .set({ ownerId: input.ownerId, updatedAt: deps.clock.now() })
    .where(eq(disputes.id, d.id))
    .returning();
  return await disputeInfo(tx, row!, true, deps.clock.now());
}

async function decide({ input, user, tx, deps, req, audit, afterCommit }: Context<typeof api.decide>) {
  const d = await disputeFor(tx, user, input.id, true);
  audit({
    target: target(d),
    detail: { outcome: input.outcome, reason: input.reason, amount: formatMinor(d.amount) },
  });
  allowed(d, input.outcome === 'won' ? 'win' : 'lose');
  if (d.openedBy === user.id) throw new AppError(errno.sameUser);
  // A lost complaint or wrong payment pays the payer back: its payee is known before the code is spent.
  const refund =
    input.outcome === 'lost' && d.kind !== 'chargeback'
      ? await (async () => {
          const order = await orderFor(tx, user, { id: d.payinId }, req.lang);
          return {
            order,
            merchant: await loadMerchant(tx, d.merchantId),
            payee: await payeeOf(tx, order, input.payee, req.lang),
            lang: req.lang,
          };
        })()
      : null;
  const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
  if (refused) return refused;
  const ended =
    input.outcome === 'won'
      ? await releaseDispute(deps, tx, d, 'win', input.reason, user.id)
      : await loseDispute(deps, tx, d, input.reason, user.id, refund);
  audit({
    changes: changes({ status: d.status }, { status: ended.status }),
    detail: {
      held: formatMinor(heldOf(ended)),
      unheld: formatMinor(ended.unheldAmount),
      refundId: ended.refundId,
    },
  });
  afterCommit(wakeWebhookWorkers);
  return await disputeInfo(tx, ended, true, deps.clock.now());
}

async function withdraw({ input, user, tx, deps, req, audit, afterCommit }: Context<typeof api.withdraw>) {
  const d = await disputeFor(tx, user, input.id, true);
  audit({ target: target(d), detail: { reason: input.reason } });
  // The merchant withdraws what it opened; the platform any case.
  if (!platform(user) && d.openedSide !== 'merchant') throw new AppError(errno.forbidden);
  allowed(d, 'withdraw');
  // The door `dispute.withdraw`: the code of whoever withdraws, merchant or platform, after every check.
  const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
  if (refused) return refused;
  const ended = await releaseDispute(deps, tx, d, 'withdraw', input.reason, user.id);
  audit({ changes: changes({ status: d.status }, { status: ended.status }) });
  afterCommit(wakeWebhookWorkers);
  return await disputeInfo(tx, ended, platform(user), deps.clock.now());
}

export const disputeRoutes = [
  handle(api.open, open),
  handle(api.list, list),
  handle(api.info, info),
  handle(api.evidence, evidence),
  handle(api.evidenceFile, evidenceFile),
  handle(api.assign, assign),
  handle(api.decide, decide),
  handle(api.withdraw, withdraw),
];
