import { and, eq, isNull } from 'drizzle-orm';
import { endpoints } from '../../../contract/index.ts';
import type { UserKind } from '../../../contract/schemas.ts';
import type { Db } from '../../db/index.ts';
import { roles } from '../../db/schema.ts';
import { t } from '../../http/i18n.ts';
import { catalogueFor } from './catalogue.ts';

/** Every read (GET) a kind may be granted: the auditor's set. */
const allReads = (kind: UserKind) =>
  catalogueFor(kind)
    .filter((e) => e.method === 'GET')
    .map((e) => e.permission);

/**
 * Built-in roles, seeded for the platform at first start and for each merchant when it is created.
 * They stay editable; the money and order areas add their endpoints here as they arrive.
 */
export const builtinRoles: Record<UserKind, Array<{ key: string; perms: () => string[] }>> = {
  platform: [
    { key: 'superAdmin', perms: () => ['*'] },
    { key: 'operator', perms: () => [endpoints.log.list.permission] },
    { key: 'finance', perms: () => [endpoints.log.list.permission] },
    { key: 'auditor', perms: () => allReads('platform') },
  ],
  merchant: [
    { key: 'owner', perms: () => ['*'] },
    { key: 'finance', perms: () => [endpoints.log.list.permission] },
    { key: 'operator', perms: () => [endpoints.log.list.permission] },
    { key: 'developer', perms: () => [endpoints.log.list.permission] },
  ],
};

/** Role names are data; built-ins are named in both languages so either reader recognises them. */
const bilingual = (key: string) => `${t('en', `roles.${key}`)} / ${t('zh_CN', `roles.${key}`)}`;

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
        description: `${t('en', `roles.${role.key}Description`)} / ${t('zh_CN', `roles.${role.key}Description`)}`,
        perms: role.perms(),
        builtinKey: role.key,
      })
      .returning({ id: roles.id });
    ids.set(role.key, row!.id);
  }
  return ids;
}
