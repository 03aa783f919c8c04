/**
 * Withdrawal slips (`withdrawalSlip.*`, platform finance). Each write locks the slip first, refuses
 * what its state (404, 409) or the format (422) does not allow, then spends the acting user's Google
 * code, then moves the slip and its lines through the service's compare-and-set transitions.
 */
import { Readable } from 'node:stream';
import { endpoints } from '../../../contract/index.ts';
import { formatMinor } from '../../../contract/money.ts';
import { FileAnswer, handle } from '../../http/handle.ts';
import { wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import {
  allowed,
  checkVoid,
  checkWithdraw,
  dropLine,
  linesFor,
  lockSlip,
  prepareSlip,
  slipCandidates,
  slipFile,
  slipInfo,
  slipList,
  voidSlip,
  withdrawLines,
  writeSlip,
} from './service.ts';

const { withdrawalSlip } = endpoints;
const target = (s: { slipNo: string }) => `slip:${s.slipNo}`;

export const slipRoutes = [
  handle(withdrawalSlip.candidates, async ({ tx }) => {
    const { list, total } = await slipCandidates(tx);
    return {
      list: list.map((c) => ({
        objectType: c.objectType,
        id: c.objectId,
        objectNo: c.objectNo,
        merchantId: c.merchantId,
        merchantCode: c.merchantCode,
        currency: c.currency,
        amount: formatMinor(c.amount),
        beneficiaryName: c.beneficiaryName,
        accountNumber: c.accountNumber,
        ifsc: c.ifsc,
        readyAt: c.readyAt.toISOString(),
      })),
      total,
    };
  }),

  handle(withdrawalSlip.create, async ({ input, user, tx, deps, req, audit }) => {
    const { code, ...request } = input;
    audit({ detail: request });
    const prepared = await prepareSlip(tx, request, req.lang);
    const refused = await checkGoogleCode(tx, deps, user, req.ip, code);
    if (refused) return refused;
    const s = await writeSlip(deps, tx, prepared, user.id);
    audit({
      target: target(s),
      detail: {
        ...request,
        currency: s.currency,
        lines: s.lineCount,
        total: formatMinor(s.total),
        fileName: s.fileName,
      },
    });
    return slipInfo(tx, s.id);
  }),

  handle(withdrawalSlip.list, ({ input, tx }) => slipList(tx, { status: input.status }, input)),

  handle(withdrawalSlip.info, ({ input, tx }) => slipInfo(tx, input.id)),

  // Bank details leaving the system: who took which slip's file is logged before its first byte.
  handle(withdrawalSlip.download, async ({ input, tx, audit }) => {
    const f = await slipFile(tx, input.id);
    audit({ target: target(f), detail: { fileName: f.fileName } });
    return new FileAnswer(f.fileName, f.contentType, Readable.from([Buffer.from(f.content, 'utf8')]));
  }),

  handle(withdrawalSlip.withdraw, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const s = await lockSlip(tx, input.id);
    audit({ target: target(s), detail: { lines: input.lines } });
    allowed(s, 'withdraw');
    const found = await linesFor(
      tx,
      s,
      input.lines.map((l) => l.lineId),
      'withdraw',
    );
    const chosen = found.map((line, i) => ({ line, reference: input.lines[i]!.reference }));
    await checkWithdraw(deps, tx, s, chosen, user.id, req.lang);
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const done = await withdrawLines(deps, tx, s, chosen, user.id);
    audit({
      changes: { status: { before: s.status, after: done.slip.status } },
      detail: { completed: done.completed },
    });
    // The merchants hear of their settlements and payouts.
    afterCommit(wakeWebhookWorkers);
    return slipInfo(tx, s.id);
  }),

  handle(withdrawalSlip.drop, async ({ input, user, tx, deps, req, audit }) => {
    const s = await lockSlip(tx, input.id);
    audit({ target: target(s), detail: { lineId: input.lineId } });
    allowed(s, 'withdraw');
    const [line] = await linesFor(tx, s, [input.lineId], 'drop');
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const after = await dropLine(deps, tx, s, line!, user.id);
    audit({
      changes: { status: { before: s.status, after: after.status } },
      detail: { lineId: line!.id, objectType: line!.objectType, objectId: line!.objectId },
    });
    return slipInfo(tx, s.id);
  }),

  handle(withdrawalSlip.void, async ({ input, user, tx, deps, req, audit }) => {
    const s = await lockSlip(tx, input.id);
    audit({ target: target(s) });
    await checkVoid(tx, s);
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const after = await voidSlip(deps, tx, s, user.id);
    audit({ changes: { status: { before: s.status, after: after.status } } });
    return slipInfo(tx, s.id);
  }),
];
