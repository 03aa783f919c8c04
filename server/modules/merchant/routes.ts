import { eq, inArray } from 'drizzle-orm';
import type { Endpoint } from '../../../contract/endpoint.ts';
import { errno } from '../../../contract/errno.ts';
import { endpoints } from '../../../contract/index.ts';
import { sqlState } from '../../db/index.ts';
import { merchants } from '../../db/schema.ts';
import { forgetMerchants } from '../../gateway/merchants.ts';
import { AppError } from '../../http/errors.ts';
import { type HandlerContext, handle } from '../../http/handle.ts';
import { changes } from '../../lib/redact.ts';
import { pagedList } from '../../list/engine.ts';
import { codeOrNameSearch } from '../../list/scope.ts';
import { checkGoogleCode } from '../auth/googleCode.ts';
import { checkedWhitelist, loadMerchant, targetMerchantId } from './scope.ts';
import { createMerchant, maskSecret, resetMerchantSecrets } from './service.ts';
import {
  channelSetOf,
  checkAgent,
  checkChannels,
  checkLimits,
  checkReserve,
  cycleDays,
  defaultLimits,
  detailsOf,
  replaceChannels,
  termsOf,
  termsSet,
  violatedConstraint,
} from './terms.ts';

/**
 * The merchant a console change is about, locked (404 when unknown), named in the operation log. Signed
 * gateway calls read its new terms and secrets from the next call on: its kept copy is forgotten once the
 * change commits.
 */
async function merchantToChange(
  {
    tx,
    deps,
    audit,
    afterCommit,
  }: Pick<HandlerContext<Endpoint, unknown>, 'tx' | 'deps' | 'audit' | 'afterCommit'>,
  id: number,
  detail?: Record<string, unknown>,
) {
  afterCommit(() => forgetMerchants(deps.database));
  const m = await loadMerchant(tx, id, true);
  audit({ target: `merchant:${m.id}`, ...(detail ? { detail } : {}) });
  return m;
}

export const merchantRoutes = [
  handle(endpoints.merchant.create, async ({ input, tx, deps, req, audit }) => {
    checkLimits(
      input.minAmount ?? defaultLimits.minAmount,
      input.maxAmount ?? defaultLimits.maxAmount,
      req.lang,
    );
    const whitelist =
      input.payoutIpWhitelist === undefined ? undefined : checkedWhitelist(input.payoutIpWhitelist, req.lang);
    if (input.channels) await checkChannels(tx, input.channels, req.lang);
    checkReserve(input, { reserveBp: null, reserveDays: null }, req.lang);
    let made: Awaited<ReturnType<typeof createMerchant>>;
    try {
      made = await createMerchant(deps, tx, {
        name: input.name,
        code: input.code,
        currency: input.currency,
        agentId: input.agentId,
        owner: {
          username: input.owner.username,
          password: input.owner.password,
          email: input.owner.email ?? '',
        },
        collectionRatePpm: input.collectionRate,
        platformFee: input.platformFee,
        payoutRatePpm: input.payoutRate,
        payoutFee: input.payoutFee,
        surchargePpm: input.surcharge,
        exchangeRate: input.exchangeRate,
        minAmount: input.minAmount,
        maxAmount: input.maxAmount,
        settlementDays: input.settlementCycle === undefined ? undefined : cycleDays(input.settlementCycle),
        settlementRatePpm: input.settlementRate,
        settlementFee: input.settlementFee,
        payoutIpWhitelist: whitelist,
        callbackUrl: input.callbackUrl,
        velocityPayinsPerDay: input.velocityPayinsPerDay,
        velocityAmountPerDay: input.velocityAmountPerDay,
        reserveBp: input.reservePercent,
        reserveDays: input.reserveDays,
        channels: input.channels,
      });
    } catch (err) {
      // Two creates racing for one code or owner name: the loser is told, not given a 500.
      if (sqlState(err) === '23505') {
        throw new AppError(
          violatedConstraint(err) === 'users_username_key' ? errno.usernameTaken : errno.conflict,
        );
      }
      throw err;
    }
    const m = made.merchant;
    audit({
      target: `merchant:${m.id}`,
      changes: changes(
        {},
        {
          // Not `code`: the trail redacts fields of that name (verification codes).
          merchantCode: m.code,
          currency: m.currency,
          ...termsOf(m),
          channels: await channelSetOf(tx, m.id),
          owner: input.owner.username,
        },
      ),
    });
    return { id: m.id, code: m.code, apiSecret: made.apiSecret, webhookSecret: made.webhookSecret };
  }),

  handle(endpoints.merchant.list, async ({ input, tx, deps }) => {
    const search = codeOrNameSearch(
      merchants,
      input.q,
      input.status ? eq(merchants.status, input.status) : undefined,
      input.agentId ? eq(merchants.agentId, input.agentId) : undefined,
    );
    const { page: rows, total: n } = await pagedList(
      tx,
      { query: tx.select().from(merchants).$dynamic(), table: merchants, ...search },
      input,
    );
    return { list: await detailsOf(tx, deps, rows), total: n, nextCursor: null };
  }),

  // By the unique index on the code; an unknown code is no error, it is left out.
  handle(endpoints.merchant.names, async ({ input, tx }) => ({
    list: await tx
      .select({ code: merchants.code, name: merchants.name })
      .from(merchants)
      .where(inArray(merchants.code, input.codes)),
  })),

  handle(endpoints.merchant.info, async ({ input, user, tx, deps, req }) => {
    const id = targetMerchantId(user, input.id, { lang: req.lang });
    const [detail] = await detailsOf(tx, deps, [await loadMerchant(tx, id)]);
    return detail!;
  }),

  handle(endpoints.merchant.update, async ({ input, tx, deps, req, audit, afterCommit }) => {
    const old = await merchantToChange({ tx, deps, audit, afterCommit }, input.id);
    checkLimits(input.minAmount ?? old.minAmount, input.maxAmount ?? old.maxAmount, req.lang);
    await checkAgent(tx, input.agentId);
    if (input.channels) await checkChannels(tx, input.channels, req.lang);
    checkReserve(input, old, req.lang);
    const set = termsSet(input, req.lang);
    if (input.name !== undefined) set.name = input.name;
    const [updated] = await tx
      .update(merchants)
      .set({ ...set, updatedAt: deps.clock.now() })
      .where(eq(merchants.id, old.id))
      .returning();
    const before: Record<string, unknown> = termsOf(old);
    const after: Record<string, unknown> = termsOf(updated!);
    if (input.channels) {
      before.channels = await channelSetOf(tx, old.id);
      await replaceChannels(tx, old.id, input.channels);
      after.channels = await channelSetOf(tx, old.id);
    }
    audit({ changes: changes(before, after) });
    return { ok: true as const };
  }),

  handle(endpoints.merchant.freeze, async ({ input, tx, deps, audit, afterCommit }) => {
    const old = await merchantToChange(
      { tx, deps, audit, afterCommit },
      input.id,
      input.reason ? { reason: input.reason } : undefined,
    );
    const status = input.frozen ? ('frozen' as const) : ('active' as const);
    if (old.status !== status) {
      await tx.update(merchants).set({ status, updatedAt: deps.clock.now() }).where(eq(merchants.id, old.id));
    }
    audit({ changes: changes({ status: old.status }, { status }) });
    return { ok: true as const };
  }),

  handle(endpoints.merchant.resetSecret, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const m = await merchantToChange(
      { tx, deps, audit, afterCommit },
      targetMerchantId(user, input.id, { lang: req.lang, write: true }),
      {
        which: input.which,
      },
    );
    // The API secret signs gateway payouts: a stolen session alone must not be able to issue one.
    const refusal = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refusal) return refusal;
    const fresh = await resetMerchantSecrets(deps, tx, m.id, input.which);
    const before: Record<string, unknown> = {};
    const after: Record<string, unknown> = {};
    if (fresh.apiSecret) {
      before.apiSecret = m.apiSecret;
      after.apiSecret = maskSecret(fresh.apiSecret);
    }
    if (fresh.webhookSecret) {
      before.webhookSecret = m.webhookSecret;
      after.webhookSecret = maskSecret(fresh.webhookSecret);
    }
    audit({ changes: changes(before, after) });
    return { id: m.id, code: m.code, apiSecret: fresh.apiSecret, webhookSecret: fresh.webhookSecret };
  }),

  handle(endpoints.merchant.ipsUpdate, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const m = await merchantToChange(
      { tx, deps, audit, afterCommit },
      targetMerchantId(user, input.id, { lang: req.lang, write: true }),
    );
    // Checked before the code, so a typo in the list does not spend it.
    const payoutIpWhitelist = checkedWhitelist(input.payoutIpWhitelist, req.lang);
    const refusal = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refusal) return refusal;
    await tx
      .update(merchants)
      .set({ payoutIpWhitelist, updatedAt: deps.clock.now() })
      .where(eq(merchants.id, m.id));
    audit({ changes: changes({ payoutIpWhitelist: m.payoutIpWhitelist }, { payoutIpWhitelist }) });
    return { ok: true as const };
  }),

  handle(endpoints.merchant.callbackUpdate, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const m = await merchantToChange(
      { tx, deps, audit, afterCommit },
      targetMerchantId(user, input.id, { lang: req.lang, write: true }),
    );
    await tx
      .update(merchants)
      .set({ callbackUrl: input.callbackUrl, updatedAt: deps.clock.now() })
      .where(eq(merchants.id, m.id));
    audit({ changes: changes({ callbackUrl: m.callbackUrl }, { callbackUrl: input.callbackUrl }) });
    return { ok: true as const };
  }),

  handle(endpoints.merchant.surchargeUpdate, async ({ input, user, tx, deps, req, audit, afterCommit }) => {
    const m = await merchantToChange(
      { tx, deps, audit, afterCommit },
      targetMerchantId(user, input.id, { lang: req.lang, write: true }),
    );
    await tx
      .update(merchants)
      .set({ surchargePpm: input.surcharge, updatedAt: deps.clock.now() })
      .where(eq(merchants.id, m.id));
    const [after] = await tx.select().from(merchants).where(eq(merchants.id, m.id));
    audit({
      changes: changes({ surcharge: termsOf(m).surcharge }, { surcharge: termsOf(after!).surcharge }),
    });
    return { ok: true as const };
  }),
];
