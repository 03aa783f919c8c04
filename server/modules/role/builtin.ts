import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { endpoints } from '../../../contract/index.ts';
import type { UserKind } from '../../../contract/schemas.ts';
import type { Db } from '../../db/index.ts';
import { roles } from '../../db/schema.ts';
import { type Lang, t } from '../../http/i18n.ts';
import { catalogueFor } from './catalogue.ts';

/** Reads the spec makes POSTs (`POST /merchantWallet/info`): they change nothing either. */
const postedReads = () => [endpoints.merchantWallet.info.permission];

/** Every read a kind may be granted: the auditor's set. */
export const allReads = (kind: UserKind) =>
  catalogueFor(kind)
    .filter((e) => e.method === 'GET' || postedReads().includes(e.permission))
    .map((e) => e.permission);

/** Permissions of the merchant, channel, agent, wallet, recharge and ledger areas, per built-in role. */
const money = {
  /** Looks merchants, their wallets and recharges up; freezes a merchant that misbehaves. */
  platformOperator: () =>
    [
      endpoints.merchant.list,
      endpoints.merchant.info,
      endpoints.merchant.freeze,
      endpoints.agent.list,
      endpoints.channel.list,
      endpoints.merchantWallet.info,
      endpoints.merchantWallet.log,
      endpoints.merchantRechargeLog.list,
      // Payouts: triage (retry, mark by hand, re-push). The simulator's controls settle orders without a
      // bank: granted only by hand (super admins hold them through `*`).
      endpoints.merchantPayout.list,
      endpoints.merchantPayout.totals,
      endpoints.merchantPayout.export,
      endpoints.merchantPayout.info,
      endpoints.merchantPayout.retry,
      endpoints.merchantPayout.markSuccess,
      endpoints.merchantPayout.markFailed,
      endpoints.merchantPayout.push,
    ].map((e) => e.permission),
  /** Decides recharges and watches the books. */
  platformFinance: () =>
    [
      endpoints.merchant.list,
      endpoints.merchant.info,
      endpoints.agent.list,
      endpoints.channel.list,
      endpoints.merchantWallet.info,
      endpoints.merchantWallet.log,
      endpoints.merchantRechargeLog.list,
      endpoints.merchantRechargeLog.confirm,
      endpoints.merchantRechargeLog.reject,
      endpoints.ledger.trialBalance,
      endpoints.merchantPayout.list,
      endpoints.merchantPayout.totals,
      endpoints.merchantPayout.export,
      endpoints.merchantPayout.info,
    ].map((e) => e.permission),
  /** Balances, transfers between them, recharges and the fee screen (surcharge). */
  merchantFinance: () =>
    [
      endpoints.merchant.info,
      endpoints.merchant.surchargeUpdate,
      endpoints.merchantWallet.info,
      endpoints.merchantWallet.log,
      endpoints.merchantWallet.transferVerify,
      endpoints.merchantWallet.transfer,
      endpoints.merchantRechargeLog.list,
      endpoints.merchantRechargeLog.create,
      // Payouts: single transfers and bulk files (both confirmed with the Google code).
      endpoints.merchantPayout.list,
      endpoints.merchantPayout.totals,
      endpoints.merchantPayout.export,
      endpoints.merchantPayout.info,
      endpoints.merchantPayout.create,
      endpoints.merchantPayout.bulkCreate,
      endpoints.merchantPayout.push,
    ].map((e) => e.permission),
  merchantOperator: () =>
    [
      endpoints.merchant.info,
      endpoints.merchantWallet.info,
      endpoints.merchantWallet.log,
      endpoints.merchantRechargeLog.list,
      endpoints.merchantPayout.list,
      endpoints.merchantPayout.totals,
      endpoints.merchantPayout.export,
      endpoints.merchantPayout.info,
      endpoints.merchantPayout.push,
    ].map((e) => e.permission),
  /** The development settings: keys, callback URL, payout IP whitelist. */
  merchantDeveloper: () =>
    [
      endpoints.merchant.info,
      endpoints.merchant.resetSecret,
      endpoints.merchant.callbackUpdate,
      endpoints.merchant.ipsUpdate,
      // Callback debugging: what was sent, and send it again.
      endpoints.merchantPayout.list,
      endpoints.merchantPayout.export,
      endpoints.merchantPayout.info,
      endpoints.merchantPayout.push,
    ].map((e) => e.permission),
};

/** Collection orders (pay-ins): who triages them. Forced supplements and deletes stay with super admins. */
const payin = {
  /** Looks orders up and fixes them: UTR checks, supplements, proofs, re-pushes. */
  platformOperator: () =>
    [
      endpoints.merchantOrder.list,
      endpoints.merchantOrder.totals,
      endpoints.merchantOrder.export,
      endpoints.merchantOrder.info,
      endpoints.merchantOrder.image,
      endpoints.merchantOrder.update,
      endpoints.merchantOrder.utrCheck,
      endpoints.merchantOrder.supplement,
      endpoints.merchantOrder.uploadImage,
      endpoints.merchantOrder.push,
    ].map((e) => e.permission),
  platformFinance: () =>
    [
      endpoints.merchantOrder.list,
      endpoints.merchantOrder.totals,
      endpoints.merchantOrder.export,
      endpoints.merchantOrder.info,
      endpoints.merchantOrder.image,
      endpoints.merchantOrder.utrCheck,
    ].map((e) => e.permission),
  merchantFinance: () =>
    [
      endpoints.merchantOrder.list,
      endpoints.merchantOrder.totals,
      endpoints.merchantOrder.export,
      endpoints.merchantOrder.info,
      endpoints.merchantOrder.image,
    ].map((e) => e.permission),
  /** Payment links from the console and the order triage a merchant may do itself. */
  merchantOperator: () =>
    [
      endpoints.merchantOrder.list,
      endpoints.merchantOrder.totals,
      endpoints.merchantOrder.export,
      endpoints.merchantOrder.info,
      endpoints.merchantOrder.image,
      endpoints.merchantOrder.create,
      endpoints.merchantOrder.update,
      endpoints.merchantOrder.utrCheck,
      endpoints.merchantOrder.supplement,
      endpoints.merchantOrder.uploadImage,
      endpoints.merchantOrder.push,
    ].map((e) => e.permission),
  /** Callback debugging: what was sent, where to, and send it again. */
  merchantDeveloper: () =>
    [
      endpoints.merchantOrder.list,
      endpoints.merchantOrder.export,
      endpoints.merchantOrder.info,
      endpoints.merchantOrder.update,
      endpoints.merchantOrder.push,
    ].map((e) => e.permission),
};

/** The dashboard's figures go to every built-in role that lists orders (which all of them do). */
const dashboard = () => [endpoints.dashboard.summary.permission];

/**
 * Built-in roles, seeded for the platform at first start and for each merchant when it is created.
 * They stay editable; the money and order areas add their endpoints here as they arrive.
 */
export const builtinRoles: Record<UserKind, Array<{ key: string; perms: () => string[] }>> = {
  platform: [
    { key: 'superAdmin', perms: () => ['*'] },
    {
      key: 'operator',
      perms: () => [
        endpoints.log.list.permission,
        ...money.platformOperator(),
        ...payin.platformOperator(),
        ...dashboard(),
      ],
    },
    {
      key: 'finance',
      perms: () => [
        endpoints.log.list.permission,
        ...money.platformFinance(),
        ...payin.platformFinance(),
        ...dashboard(),
      ],
    },
    { key: 'auditor', perms: () => allReads('platform') },
  ],
  merchant: [
    { key: 'owner', perms: () => ['*'] },
    {
      key: 'finance',
      perms: () => [
        endpoints.log.list.permission,
        ...money.merchantFinance(),
        ...payin.merchantFinance(),
        ...dashboard(),
      ],
    },
    {
      key: 'operator',
      perms: () => [
        endpoints.log.list.permission,
        ...money.merchantOperator(),
        ...payin.merchantOperator(),
        ...dashboard(),
      ],
    },
    {
      key: 'developer',
      perms: () => [
        endpoints.log.list.permission,
        ...money.merchantDeveloper(),
        ...payin.merchantDeveloper(),
        ...dashboard(),
      ],
    },
  ],
};

/** Role names are data; built-ins are stored in both languages so either reader recognises them. */
const bilingual = (key: string) => `${t('en', `roles.${key}`)} / ${t('zh_CN', `roles.${key}`)}`;
const bilingualDescription = (key: string) =>
  `${t('en', `roles.${key}Description`)} / ${t('zh_CN', `roles.${key}Description`)}`;

/** A built-in role whose name (or description) nobody changed is answered in the reader's language. */
export function roleText(
  role: { builtinKey: string | null; name: string; description: string },
  lang: Lang,
): { name: string; description: string } {
  const key = role.builtinKey;
  return {
    name: key && role.name === bilingual(key) ? t(lang, `roles.${key}`) : role.name,
    description:
      key && role.description === bilingualDescription(key)
        ? t(lang, `roles.${key}Description`)
        : role.description,
  };
}

export async function seedBuiltinRoles(
  tx: Db,
  kind: UserKind,
  merchantId: number | null,
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const role of builtinRoles[kind]) {
    const scope = and(
      eq(roles.kind, kind),
      merchantId === null ? isNull(roles.merchantId) : eq(roles.merchantId, merchantId),
      eq(roles.builtinKey, role.key),
    );
    const [existing] = await tx.select({ id: roles.id }).from(roles).where(scope);
    if (existing) {
      ids.set(role.key, existing.id);
      continue;
    }
    const [row] = await tx
      .insert(roles)
      .values({
        kind,
        merchantId,
        name: bilingual(role.key),
        description: bilingualDescription(role.key),
        perms: role.perms(),
        seededPerms: role.perms(),
        builtinKey: role.key,
      })
      .returning({ id: roles.id });
    ids.set(role.key, row!.id);
  }
  return ids;
}

/**
 * Permissions an earlier version put in built-in roles and a security review took out: the simulator's
 * controls settle orders without a bank (issue 11), so only super administrators hold them.
 */
const withdrawn = new Set<string>(['POST /simulator/pay', 'POST /simulator/payout']);

/**
 * Brings built-in roles of every tenant up to the code's definitions at start: permissions a later
 * version added to a built-in role are granted; permissions an administrator removed from a role stay
 * removed (they were in the role's seeded set already). The one revocation is `withdrawn`: a withdrawn
 * permission that the code granted (it is in the seeded set, or the role predates seeded sets) is taken
 * out once; an administrator may grant it again by hand. Roles seeded before the seeded set was recorded
 * are otherwise only recorded (nothing granted), so no removal made on them is undone. Answers how many
 * roles gained or lost permissions.
 */
export async function upgradeBuiltinRoles(tx: Db): Promise<number> {
  const rows = await tx
    .select({
      id: roles.id,
      kind: roles.kind,
      key: roles.builtinKey,
      perms: roles.perms,
      seeded: roles.seededPerms,
    })
    .from(roles)
    .where(isNotNull(roles.builtinKey));
  let upgraded = 0;
  for (const row of rows) {
    const definition = builtinRoles[row.kind].find((r) => r.key === row.key);
    if (!definition) continue;
    const current = definition.perms();
    const seeded = row.seeded;
    const added = seeded ? current.filter((p) => !seeded.includes(p)) : [];
    const sameSeed = seeded && seeded.length === current.length && current.every((p) => seeded.includes(p));
    if (sameSeed) continue;
    const taken = row.perms.filter(
      (p) => withdrawn.has(p) && !current.includes(p) && (!seeded || seeded.includes(p)),
    );
    const perms = [...row.perms, ...added.filter((p) => !row.perms.includes(p))].filter(
      (p) => !taken.includes(p),
    );
    await tx.update(roles).set({ perms, seededPerms: current }).where(eq(roles.id, row.id));
    if (added.length || taken.length) upgraded += 1;
  }
  return upgraded;
}
