import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import type { Db } from '../../db/index.ts';
import { agents, channels, merchantChannels, merchants, userRoles, users } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import { ensureAccounts, merchantAccount, merchantWalletKinds } from '../../ledger/index.ts';
import { hashPassword } from '../../lib/crypto.ts';
import { usableChannelsWhere } from '../payin/routing.ts';
import { seedBuiltinRoles } from '../role/builtin.ts';

type Merchant = typeof merchants.$inferSelect;

/** A merchant's API secret: 32 random bytes, hex. Answered once; stored sealed. */
export const newApiSecret = () => `sk_${randomBytes(32).toString('hex')}`;
/** Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export function maskSecret(sealedOrPlain: string, plain?: string): string {
  const s = plain ?? sealedOrPlain;
  if (!s) return '';
  return `${s.slice(0, 8)}…${s.slice(-4)}`;
}

export interface NewMerchant {
  name: string;
  code?: string;
  currency?: string;
  agentId?: number | null;
  owner: { username: string; password: string; email?: string; nickname?: string };
  collectionRatePpm?: number;
  platformFee?: number;
  payoutRatePpm?: number;
  payoutFee?: number;
  surchargePpm?: number;
  exchangeRate?: string;
  minAmount?: number;
  maxAmount?: number;
  settlementDays?: number;
  settlementRatePpm?: number;
  settlementFee?: number;
  payoutIpWhitelist?: string[];
  callbackUrl?: string;
  velocityPayinsPerDay?: number | null;
  velocityAmountPerDay?: number | null;
  /** Rolling reserve: basis points of each payment's net, and days; both or neither (null: none). */
  reserveBp?: number | null;
  reserveDays?: number | null;
  /** Channels to route through; default: none. */
  channels?: { channelId: number; weight: number }[];
}

async function nextMerchantCode(tx: Db): Promise<string> {
  for (;;) {
    const code = `M${10_000 + Math.floor(Math.random() * 90_000)}`;
    const [taken] = await tx.select({ id: merchants.id }).from(merchants).where(eq(merchants.code, code));
    if (!taken) return code;
  }
}

/**
 * Creates a merchant with its ledger accounts, built-in roles, owner user (owner role), channel routes
 * and fresh secrets; answers the secrets in clear text, once.
 */
export async function createMerchant(deps: Pick<Deps, 'sealer'>, tx: Db, m: NewMerchant) {
  const code = m.code ?? (await nextMerchantCode(tx));
  if (m.code) {
    const [taken] = await tx.select({ id: merchants.id }).from(merchants).where(eq(merchants.code, m.code));
    if (taken)
      throw new AppError(errno.conflict, { fields: [{ path: 'code', code: 'taken', message: code }] });
  }
  const [takenUser] = await tx
    .select({ id: users.id })
    .from(users)
    .where(eq(users.username, m.owner.username));
  if (takenUser) throw new AppError(errno.usernameTaken);
  if (m.agentId) {
    const [agent] = await tx.select({ id: agents.id }).from(agents).where(eq(agents.id, m.agentId));
    if (!agent)
      throw new AppError(errno.notFound, {
        fields: [{ path: 'agentId', code: 'not_found', message: String(m.agentId) }],
      });
  }
  const apiSecret = newApiSecret();
  const webhookSecret = newWebhookSecret();
  const currency = m.currency ?? 'INR';
  const [merchant] = await tx
    .insert(merchants)
    .values({
      code,
      name: m.name,
      currency,
      agentId: m.agentId ?? null,
      collectionRatePpm: m.collectionRatePpm ?? 0,
      platformFee: m.platformFee ?? 0,
      payoutRatePpm: m.payoutRatePpm ?? 0,
      payoutFee: m.payoutFee ?? 0,
      surchargePpm: m.surchargePpm ?? 0,
      exchangeRate: m.exchangeRate ?? '0',
      ...(m.minAmount !== undefined ? { minAmount: m.minAmount } : {}),
      ...(m.maxAmount !== undefined ? { maxAmount: m.maxAmount } : {}),
      settlementDays: m.settlementDays ?? 0,
      settlementRatePpm: m.settlementRatePpm ?? 0,
      settlementFee: m.settlementFee ?? 0,
      payoutIpWhitelist: m.payoutIpWhitelist ?? [],
      callbackUrl: m.callbackUrl ?? '',
      velocityPayinsPerDay: m.velocityPayinsPerDay ?? null,
      velocityAmountPerDay: m.velocityAmountPerDay ?? null,
      reserveBp: m.reserveBp || null,
      reserveDays: m.reserveBp ? (m.reserveDays ?? null) : null,
      apiSecret: deps.sealer.seal(apiSecret),
      webhookSecret: deps.sealer.seal(webhookSecret),
    })
    .returning();
  const id = merchant!.id;
  await ensureAccounts(
    tx,
    merchantWalletKinds.map((k) => merchantAccount(id, k, currency)),
  );
  // Only the routes asked for: a merchant is never put on a channel (the simulator least of all) by default.
  const routes = m.channels ?? [];
  for (const r of routes) {
    const [ch] = await tx.select({ id: channels.id }).from(channels).where(eq(channels.id, r.channelId));
    if (!ch)
      throw new AppError(errno.notFound, {
        fields: [{ path: 'channels', code: 'not_found', message: String(r.channelId) }],
      });
  }
  if (routes.length)
    await tx
      .insert(merchantChannels)
      .values(routes.map((r) => ({ merchantId: id, channelId: r.channelId, weight: r.weight })));
  const roleIds = await seedBuiltinRoles(tx, 'merchant', id);
  const [owner] = await tx
    .insert(users)
    .values({
      kind: 'merchant',
      merchantId: id,
      username: m.owner.username,
      nickname: m.owner.nickname ?? m.name,
      email: m.owner.email ?? '',
      passwordHash: await hashPassword(m.owner.password),
    })
    .returning({ id: users.id });
  await tx.insert(userRoles).values({ userId: owner!.id, roleId: roleIds.get('owner')! });
  return { merchant: merchant!, ownerId: owner!.id, roleIds, apiSecret, webhookSecret };
}

/** Sets new secrets; answers them in clear text, once. */
export async function resetMerchantSecrets(
  deps: Pick<Deps, 'sealer'>,
  tx: Db,
  merchantId: number,
  which: 'api' | 'webhook' | 'both',
) {
  const apiSecret = newApiSecret();
  const webhookSecret = newWebhookSecret();
  await tx
    .update(merchants)
    .set({
      ...(which !== 'webhook' ? { apiSecret: deps.sealer.seal(apiSecret) } : {}),
      ...(which !== 'api' ? { webhookSecret: deps.sealer.seal(webhookSecret) } : {}),
      updatedAt: new Date(),
    })
    .where(eq(merchants.id, merchantId));
  return {
    apiSecret: which !== 'webhook' ? apiSecret : '',
    webhookSecret: which !== 'api' ? webhookSecret : '',
  };
}

export async function merchantByCode(tx: Db, code: string): Promise<Merchant | undefined> {
  const [row] = await tx.select().from(merchants).where(eq(merchants.code, code));
  return row;
}

/**
 * The channels a merchant routes through that are active and may carry orders (`channelUsable`: not the
 * simulator while SIMULATOR is off), with their weights.
 */
export async function routesOf(deps: Pick<Deps, 'config' | 'database'>, tx: Db, merchantId: number) {
  return tx
    .select({ channel: channels, weight: merchantChannels.weight })
    .from(merchantChannels)
    .innerJoin(channels, eq(channels.id, merchantChannels.channelId))
    .where(
      and(
        eq(merchantChannels.merchantId, merchantId),
        eq(merchantChannels.enabled, true),
        eq(channels.status, 'active'),
        usableChannelsWhere(deps),
      ),
    );
}
