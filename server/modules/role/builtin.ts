import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { administratorRole, builtinRoleKeys } from '../../../contract/index.ts';
import type { UserKind } from '../../../contract/schemas.ts';
import type { Db } from '../../db/index.ts';
import { roles } from '../../db/schema.ts';
import { type Lang, t } from '../../http/i18n.ts';
import { catalogueFor } from './catalogue.ts';

/** The built-in role holding every read of its kind's catalogue (GETs) without being named in `grants`. */
const readsEverything = 'auditor';

/**
 * What a built-in role of `kind` holds: `*` for the administrator (super admin, owner); otherwise the
 * endpoints of its kind's catalogue whose `grants` name it, and for the auditor every GET besides.
 */
function builtinPerms(kind: UserKind, key: string): string[] {
  if (key === administratorRole[kind]) return ['*'];
  return catalogueFor(kind)
    .filter((e) => {
      const named: readonly string[] = e.grants?.[kind] ?? [];
      return named.includes(key) || (key === readsEverything && e.method === 'GET');
    })
    .map((e) => e.permission);
}

/**
 * Built-in roles, seeded for the platform at first start and for each merchant when it is created. They
 * stay editable; an endpoint joins them through its `grants`, and `upgradeBuiltinRoles` brings stored
 * roles up to date.
 */
export const builtinRoles: Record<UserKind, Array<{ key: string; perms: () => string[] }>> = {
  platform: builtinRoleKeys.platform.map((key) => ({ key, perms: () => builtinPerms('platform', key) })),
  merchant: builtinRoleKeys.merchant.map((key) => ({ key, perms: () => builtinPerms('merchant', key) })),
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
 * controls settle orders without a bank (issue 11), so only super administrators hold them; posting and
 * matching bank statements pay orders, a money decision that is finance's, not the operators' (issue 25).
 */
const withdrawn = new Set<string>([
  'POST /simulator/pay',
  'POST /simulator/payout',
  'POST /statement/accept',
  'POST /statement/match',
]);

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
