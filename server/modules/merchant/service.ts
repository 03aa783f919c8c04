import { eq } from 'drizzle-orm';
import type { Db } from '../../db/index.ts';
import { merchants, userRoles, users } from '../../db/schema.ts';
import { hashPassword } from '../../lib/crypto.ts';
import { seedBuiltinRoles } from '../role/builtin.ts';

/**
 * Creates a merchant with its built-in roles and its owner user (holding the owner role).
 * The money core adds rates, limits, keys and accounts around this.
 */
export async function createMerchantRecord(
  tx: Db,
  m: {
    code: string;
    name: string;
    owner: { username: string; password: string; email?: string; nickname?: string };
  },
) {
  const [merchant] = await tx.insert(merchants).values({ code: m.code, name: m.name }).returning();
  const roleIds = await seedBuiltinRoles(tx, 'merchant', merchant!.id);
  const [owner] = await tx
    .insert(users)
    .values({
      kind: 'merchant',
      merchantId: merchant!.id,
      username: m.owner.username,
      nickname: m.owner.nickname ?? m.name,
      email: m.owner.email ?? '',
      passwordHash: await hashPassword(m.owner.password),
    })
    .returning({ id: users.id });
  await tx.insert(userRoles).values({ userId: owner!.id, roleId: roleIds.get('owner')! });
  return { merchant: merchant!, ownerId: owner!.id, roleIds };
}

export async function merchantByCode(tx: Db, code: string) {
  const [row] = await tx.select().from(merchants).where(eq(merchants.code, code));
  return row;
}
