/**
 * Settlement applications' endpoints (OPERATIONS.md section 1): the same handlers for each wallet
 * (`/settlementPayment/*` the collection wallet, `/settlementPayout/*` the payout wallet), each seeing only
 * its wallet's settlements, and the platform's real-time queue across both (`/settlementQuery/list`).
 * A merchant user sees and acts on its own merchant's only: the merchant comes from the session, and
 * another merchant's settlement answers 404. The cheap refusals (404, 409, 422, 1040–1042) come before
 * the Google code is spent.
 */
import { and, eq, type SQL } from 'drizzle-orm';
import { settlementOf } from '../../../contract/endpoints/settlement.ts';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { settlement } from '../../../contract/machines.ts';
import { formatMinor } from '../../../contract/money.ts';
import type { Db } from '../../db/index.ts';
import { settlementImages, settlements } from '../../db/schema.ts';
import { inStates } from '../../db/states.ts';
import { AppError } from '../../http/errors.ts';
import { handle, type Route } from '../../http/handle.ts';
import type { SessionUser } from '../../http/session.ts';
import { invalidField } from '../../http/validation.ts';
import { wakeWebhookWorkers } from '../../jobs/webhooks.ts';
import { orderPostings } from '../../ledger/index.ts';
import { changes } from '../../lib/redact.ts';
import { createdPlace, keysetList } from '../../list/engine.ts';
import { listPeriod, merchantScope, tenantOf } from '../../list/scope.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { loadMerchant } from '../merchant/scope.ts';
import { decodeImage, type ImageMime, readImage, storeImage } from '../payin/images.ts';
import { refuseWhileOnSlip } from '../slip/live.ts';
import {
  ageSeconds,
  allowed,
  applySettlement,
  cancelSettlement,
  checkApplication,
  checkComplete,
  checkConfirm,
  checkEdit,
  checkReject,
  completeSettlement,
  confirmSettlement,
  heldOf,
  loadSettlement,
  paidOf,
  queueSummary,
  rejectSettlement,
  type Settlement,
  type SettlementWallet,
  settlementRefType,
  settlementRowOf,
  settlementRowsOf,
  settlementTotals,
  settlementWhere,
  updateSettlement,
} from './service.ts';

/** The uploads folder of settlements' proof images (pay-ins use their ids: no clash). */
const imagesFolder = 'settlements';
/** Ids are `serial`: a cursor naming a larger one is refused as invalid, not sent to the database. */

/** Settlements read a page at a time, keyset on (created_at, id). */
const settlementPages = (tx: Db, where: SQL) => ({
  query: tx.select().from(settlements).$dynamic(),
  table: settlements,
  where,
});
const settlementKeyset = {
  at: settlements.createdAt,
  id: settlements.id,
  serialId: true,
  placeOf: createdPlace,
};

const auditTarget = (s: Pick<Settlement, 'settlementNo'>) => `settlement:${s.settlementNo}`;
const hold = (s: Settlement) => formatMinor(heldOf(s));

/** The handlers of one wallet's endpoints. */
function walletRoutes(wallet: SettlementWallet): Route[] {
  const ep = settlementOf[wallet];
  /** What the caller may see: this wallet's settlements, and a merchant user its merchant's only. */
  const scope = (user: SessionUser) => ({ wallet, merchantId: tenantOf(user) });

  return [
    handle(ep.list, async ({ input, user, tx, deps, req }) => {
      const where = settlementWhere({
        ...listPeriod(deps, input, req.lang, true),
        wallet,
        merchantId: merchantScope(user, input.merchantId),
        status: input.status,
        type: input.type,
        q: input.q,
      });
      const { page, nextCursor } = await keysetList(
        tx,
        { ...settlementPages(tx, where), keyset: { ...settlementKeyset, oldestFirst: false }, total: false },
        input,
        req.lang,
      );
      return {
        list: await settlementRowsOf(tx, page),
        nextCursor,
        totals: await settlementTotals(tx, where),
      };
    }),

    handle(ep.info, async ({ input, user, tx, req }) => {
      if (input.id === undefined && input.settlementNo === undefined)
        throw invalidField(req.lang, 'id', 'validation.settlementRef');
      const s = await loadSettlement(tx, input, scope(user));
      // A merchant sees its own accounts' lines; the platform's balances are not its business.
      return {
        ...(await settlementRowOf(tx, s)),
        postings: await orderPostings(tx, settlementRefType, s.id, tenantOf(user)),
      };
    }),

    handle(ep.create, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
      const merchant = await loadMerchant(tx, user.merchantId!);
      const { code, ...application } = input;
      audit({ detail: { wallet, type: input.type, amount: formatMinor(input.amount) } });
      await checkApplication(tx, merchant, wallet, application, req.lang);
      const refused = await checkGoogleCode(tx, deps, user, req.ip, code);
      if (refused) return refused;
      const s = await applySettlement(deps, tx, merchant, wallet, application, user.id, req.lang);
      audit({
        target: auditTarget(s),
        detail: {
          wallet,
          type: s.type,
          amount: formatMinor(s.amount),
          fee: formatMinor(s.fee),
          held: hold(s),
        },
      });
      afterCommit(wakeWebhookWorkers);
      return settlementRowOf(tx, s);
    }),

    handle(ep.update, async ({ input, user, tx, deps, req, audit }) => {
      const s = await loadSettlement(tx, { id: input.id }, scope(user), true);
      const { id: _id, code, ...edit } = input;
      audit({ target: auditTarget(s) });
      await checkEdit(tx, s, edit, req.lang);
      const refused = await checkGoogleCode(tx, deps, user, req.ip, code);
      if (refused) return refused;
      const row = await updateSettlement(deps, tx, s, edit, user.id, req.lang);
      const view = (x: Settlement) => ({
        amount: formatMinor(x.amount),
        fee: formatMinor(x.fee),
        held: hold(x),
        accountName: x.accountName,
        cardNumber: x.cardNumber,
        ifsc: x.ifsc,
        returnAddress: x.returnAddress,
      });
      audit({ changes: changes(view(s), view(row)) });
      return settlementRowOf(tx, row);
    }),

    handle(ep.delete, async ({ input, user, tx, deps, audit, afterCommit }) => {
      const s = await loadSettlement(tx, { id: input.id }, scope(user), true);
      audit({ target: auditTarget(s) });
      allowed(s, 'cancel');
      const row = await cancelSettlement(deps, tx, s, user.id);
      audit({
        changes: changes({ status: s.status, reason: s.reason }, { status: row.status, reason: row.reason }),
        detail: { released: hold(s) },
      });
      afterCommit(wakeWebhookWorkers);
      return settlementRowOf(tx, row);
    }),

    handle(ep.confirm, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
      const s = await loadSettlement(tx, { id: input.id }, scope(user), true);
      const c = { auditAmount: input.auditAmount, price: input.price };
      audit({
        target: auditTarget(s),
        detail: { auditAmount: formatMinor(c.auditAmount), price: c.price ?? null },
      });
      await checkConfirm(tx, s, c, req.lang);
      const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
      if (refused) return refused;
      const done = await confirmSettlement(deps, tx, s, c, user.id, req.lang);
      const row = done.settlement;
      audit({
        changes: changes(
          { status: s.status, auditAmount: null, held: hold(s) },
          {
            status: row.status,
            auditAmount: row.auditAmount === null ? null : formatMinor(row.auditAmount),
            held: hold(row),
          },
        ),
        detail: { awaitsApproval: done.awaitsApproval, amount: formatMinor(s.amount) },
      });
      afterCommit(wakeWebhookWorkers);
      return settlementRowOf(tx, row);
    }),

    handle(ep.complete, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
      const s = await loadSettlement(tx, { id: input.id }, scope(user), true);
      const c = { reference: input.reference, attachments: input.attachments };
      audit({ target: auditTarget(s), detail: { reference: c.reference, attachments: c.attachments ?? [] } });
      await checkComplete(tx, s, c, user.id, req.lang);
      // The slip completes it through completeSettlement; by hand it must come off the slip first.
      await refuseWhileOnSlip(tx, 'settlement', s.id);
      const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
      if (refused) return refused;
      const row = await completeSettlement(deps, tx, s.id, c, user.id, req.lang);
      audit({
        changes: changes(
          { status: s.status, reference: null },
          { status: row.status, reference: row.reference },
        ),
        detail: { paid: formatMinor(paidOf(row)), fee: formatMinor(row.fee) },
      });
      afterCommit(wakeWebhookWorkers);
      return settlementRowOf(tx, row);
    }),

    handle(ep.reject, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
      const s = await loadSettlement(tx, { id: input.id }, scope(user), true);
      audit({ target: auditTarget(s), detail: { reason: input.reason } });
      await checkReject(tx, s);
      const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
      if (refused) return refused;
      const row = await rejectSettlement(deps, tx, s, input.reason, user.id);
      audit({
        changes: changes({ status: s.status, reason: s.reason }, { status: row.status, reason: row.reason }),
        detail: { released: hold(s) },
      });
      afterCommit(wakeWebhookWorkers);
      return settlementRowOf(tx, row);
    }),

    handle(ep.uploadImage, async ({ input, user, tx, deps, req, audit }) => {
      audit({ detail: { wallet, filename: input.filename, mime: input.mime } });
      const bytes = decodeImage(input.mime, input.dataBase64);
      if (typeof bytes === 'string') throw invalidField(req.lang, 'dataBase64', bytes);
      const path = await storeImage(deps, imagesFolder, input.mime as ImageMime, bytes);
      const [row] = await tx
        .insert(settlementImages)
        .values({ path, mime: input.mime, size: bytes.length, userId: user.id, createdAt: deps.clock.now() })
        .returning({ id: settlementImages.id });
      audit({ target: `settlementImage:${row!.id}` });
      return { imageId: row!.id };
    }),

    handle(ep.image, async ({ input, user, tx, deps }) => {
      const tenant = tenantOf(user);
      // Only an attached image is a settlement's: one waiting for its completion is nobody's to see yet.
      const [row] = await tx
        .select({ image: settlementImages })
        .from(settlementImages)
        .innerJoin(settlements, eq(settlements.id, settlementImages.settlementId))
        .where(
          and(
            eq(settlementImages.id, input.id),
            eq(settlements.wallet, wallet),
            tenant === null ? undefined : eq(settlements.merchantId, tenant),
          ),
        );
      if (!row) throw new AppError(errno.notFound);
      const bytes = await readImage(deps, row.image.path).catch(() => null);
      if (!bytes) throw new AppError(errno.notFound, null, `image file ${row.image.path} missing`);
      return {
        id: row.image.id,
        settlementId: row.image.settlementId!,
        mime: row.image.mime,
        size: row.image.size,
        dataBase64: bytes.toString('base64'),
      };
    }),
  ];
}

export const settlementRoutes: Route[] = [
  ...walletRoutes('collection'),
  ...walletRoutes('payout'),

  handle(endpoints.settlementQuery.list, async ({ input, tx, deps, req }) => {
    const now = deps.clock.now();
    const where: SQL = and(
      inStates(settlements.status, input.status ? [input.status] : settlement.sets.open),
      input.merchantId !== undefined ? eq(settlements.merchantId, input.merchantId) : undefined,
    )!;
    // The queue: oldest first.
    const { page, nextCursor } = await keysetList(
      tx,
      { ...settlementPages(tx, where), keyset: { ...settlementKeyset, oldestFirst: true }, total: false },
      input,
      req.lang,
    );
    const views = await settlementRowsOf(tx, page);
    return {
      list: views.map((v, i) => ({ ...v, ageSeconds: ageSeconds(now, page[i]!.createdAt) })),
      nextCursor,
      summary: await queueSummary(tx, now, input.merchantId),
    };
  }),
];
