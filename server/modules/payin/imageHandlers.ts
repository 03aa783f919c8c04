/** The images attached to a pay-in (a payer's receipt): uploaded, and read back by whoever may see the order. */
import { and, eq, sql } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { orderImages, payinOrders } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import { type Context, handle } from '../../http/handle.ts';
import { invalidField } from '../../http/validation.ts';
import { tenantOf } from '../../list/scope.ts';
import { allowed, auditTarget, orderFor } from './access.ts';
import { decodeImage, type ImageMime, maxImagesPerOrder, readImage, storeImage } from './images.ts';

async function uploadOrderImage(ctx: Context<typeof endpoints.merchantOrder.uploadImage>) {
  const { input, user, tx, deps, req, audit } = ctx;
  const order = await orderFor(tx, user, { id: input.id }, req.lang);
  audit({ target: auditTarget(order), detail: { filename: input.filename, mime: input.mime } });
  allowed(order, 'uploadImage');
  const bytes = decodeImage(input.mime, input.dataBase64);
  if (typeof bytes === 'string') throw invalidField(req.lang, 'dataBase64', bytes);
  const [{ n } = { n: 0 }] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(orderImages)
    .where(eq(orderImages.orderId, order.id));
  if (Number(n) >= maxImagesPerOrder) {
    throw invalidField(req.lang, 'id', 'validation.imageCount', { max: maxImagesPerOrder });
  }
  const path = await storeImage(deps, order.id, input.mime as ImageMime, bytes);
  const [row] = await tx
    .insert(orderImages)
    .values({
      orderId: order.id,
      path,
      mime: input.mime,
      size: bytes.length,
      userId: user.id,
      createdAt: deps.clock.now(),
    })
    .returning({ id: orderImages.id });
  return { imageId: row!.id };
}

async function orderImage({ input, user, tx, deps }: Context<typeof endpoints.merchantOrder.image>) {
  const tenant = tenantOf(user);
  const [row] = await tx
    .select({ image: orderImages })
    .from(orderImages)
    .innerJoin(payinOrders, eq(payinOrders.id, orderImages.orderId))
    .where(
      and(eq(orderImages.id, input.id), tenant === null ? undefined : eq(payinOrders.merchantId, tenant)),
    );
  if (!row) throw new AppError(errno.notFound);
  const bytes = await readImage(deps, row.image.path).catch(() => null);
  if (!bytes) throw new AppError(errno.notFound, null, `image file ${row.image.path} missing`);
  return {
    id: row.image.id,
    orderId: row.image.orderId,
    mime: row.image.mime,
    size: row.image.size,
    dataBase64: bytes.toString('base64'),
  };
}

/** An order's images, mounted by `payin/routes.ts`. */
export const imageRoutes = [
  handle(endpoints.merchantOrder.uploadImage, uploadOrderImage),
  handle(endpoints.merchantOrder.image, orderImage),
];
