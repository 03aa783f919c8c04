/**
 * Maker–checker (OPERATIONS.md section 1): an action on money beyond the day's sums (doors.ts) is not
 * run by the user who asks for it. `request` records it as a pending approval (one
 * per object: the partial unique index refuses a second, answered as `approvalPending`); a second
 * platform user approves it (the action then runs, through the executor its module registered) or
 * rejects it. The database refuses an approval decided by its requester, whatever the code does.
 *
 * Modules register their executors at load (`onApproved`): the approval routes look the action up by
 * name, so this module imports none of them.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { ApprovalAction } from '../../../contract/endpoints/approval.ts';
import { errno } from '../../../contract/errno.ts';
import { approval } from '../../../contract/machines.ts';
import { type Db, sqlState } from '../../db/index.ts';
import { approvals } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError, type Refusal, refuse } from '../../http/errors.ts';
import type { AuditEntry } from '../../http/handle.ts';

export type Approval = typeof approvals.$inferSelect;

export type { ApprovalAction };

export interface ApprovalRequest {
  action: ApprovalAction;
  refType: string;
  refId: string | number;
  merchantId: number | null;
  currency: string;
  /** What makes it need a second person: compared with the threshold. */
  amount: number;
  /** The action's input, replayed by its executor on approval (never a secret: no codes). */
  payload: Record<string, unknown>;
  reason?: string;
  /** Users besides the requester who may not decide it (the importers of the statement it pays from). */
  barred?: readonly number[];
}

/**
 * Runs an approved request inside the approver's transaction; throws AppError to refuse (nothing
 * changes). May answer what the approval's operation log entry should add (the object's changes).
 */
export type Executor = (
  deps: Deps,
  tx: Db,
  request: Approval,
  approverId: number,
  // biome-ignore lint/suspicious/noConfusingVoidType: an executor that adds nothing is a plain async function
) => Promise<Pick<AuditEntry, 'changes' | 'detail'> | void>;

const executors = new Map<ApprovalAction, Executor>();

/** Registers what runs when a request of `action` is approved (once per action, at module load). */
export function onApproved(action: ApprovalAction, run: Executor): void {
  if (executors.has(action)) throw new Error(`approval executor for ${action} registered twice`);
  executors.set(action, run);
}

const rejecters = new Map<ApprovalAction, Executor>();

/**
 * Registers what runs when a request of `action` is rejected, for an object that waits for its decision
 * (a refund `requested` ends `rejected`): in the rejecter's transaction. Most requests need none.
 */
export function onRejected(action: ApprovalAction, run: Executor): void {
  if (rejecters.has(action)) throw new Error(`rejection handler for ${action} registered twice`);
  rejecters.set(action, run);
}

export const rejecterOf = (action: string): Executor | undefined => rejecters.get(action as ApprovalAction);

export function executorOf(action: string): Executor {
  const run = executors.get(action as ApprovalAction);
  if (!run) throw new Error(`no approval executor for ${action}`);
  return run;
}

/** Records a pending request; a second one for the same object while one is pending is `approvalPending`. */
export async function requestApproval(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  req: ApprovalRequest,
  userId: number,
): Promise<Approval> {
  // A savepoint: the refused insert must not abort the caller's transaction.
  try {
    return await tx.transaction(async (sp) => {
      const [row] = await sp
        .insert(approvals)
        .values({
          action: req.action,
          refType: req.refType,
          refId: String(req.refId),
          merchantId: req.merchantId,
          currency: req.currency,
          amount: req.amount,
          payload: req.payload,
          reason: req.reason ?? '',
          barred: [...new Set(req.barred ?? [])].filter((id) => id !== userId),
          requestedBy: userId,
          requestedAt: deps.clock.now(),
        })
        .returning();
      return row!;
    });
  } catch (err) {
    if (sqlState(err) === '23505') throw new AppError(errno.approvalPending);
    throw err;
  }
}

/**
 * The answer of an action that now waits for a second person: its operation log entry names the request
 * beside what was asked (`detail`), and the caller hears `approvalRequested` with the request's id. A
 * returned refusal, so the request (and the spent Google code) is committed.
 */
export function approvalRequested(
  audit: (entry: AuditEntry) => void,
  request: Approval,
  detail: Record<string, unknown>,
): Refusal {
  audit({ detail: { ...detail, approvalId: request.id } });
  return refuse(errno.approvalRequested, { approvalId: request.id });
}

/** The pending request on an object, if any. */
export async function pendingApproval(
  tx: Db,
  refType: string,
  refId: string | number,
): Promise<Approval | undefined> {
  const [row] = await tx
    .select()
    .from(approvals)
    .where(
      and(
        eq(approvals.refType, refType),
        eq(approvals.refId, String(refId)),
        eq(approvals.status, approval.state.pending),
      ),
    );
  return row;
}

/** Cancels the pending request on an object that moved on without it (rejected, cancelled, settled). */
export async function cancelPendingApproval(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  refType: string,
  refId: string | number,
): Promise<void> {
  await cancelPendingApprovals(deps, tx, refType, [refId]);
}

/** `cancelPendingApproval` for many objects of one type, in one statement. */
export async function cancelPendingApprovals(
  deps: Pick<Deps, 'clock'>,
  tx: Db,
  refType: string,
  refIds: readonly (string | number)[],
): Promise<void> {
  if (!refIds.length) return;
  // No decider: whoever moved the object may be the requester, who never decides their own request.
  await tx
    .update(approvals)
    .set({ status: approval.to('cancel')!, decidedAt: deps.clock.now() })
    .where(
      and(
        eq(approvals.refType, refType),
        inArray(
          approvals.refId,
          refIds.map((id) => String(id)),
        ),
        eq(approvals.status, approval.state.pending),
      ),
    );
}
