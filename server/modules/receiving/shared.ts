/** What the receiving resources' handlers share: a taken number is 409, a named row must exist, a holder named must exist. */
import { eq } from 'drizzle-orm';
import { errno } from '../../../contract/errno.ts';
import { type Db, sqlState } from '../../db/index.ts';
import { accountHolders, receivingAccounts } from '../../db/schema.ts';
import { AppError } from '../../http/errors.ts';
import type { Lang } from '../../http/i18n.ts';
import { invalidField } from '../../http/validation.ts';

export type Account = typeof receivingAccounts.$inferSelect;
export type Holder = typeof accountHolders.$inferSelect;

/** The columns `accountLabel` names an account by (its bank and the last digits of its number), to select. */
export const labelColumns = {
  bankName: receivingAccounts.bankName,
  accountNumber: receivingAccounts.accountNumber,
};

const taken = (path: string) =>
  new AppError(errno.conflict, { fields: [{ path, code: 'taken', message: path }] });
/** Runs an insert or update; a unique key already held answers 409 on `path` instead. */
export async function orTaken<T>(path: string, write: PromiseLike<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (sqlState(err) === '23505') throw taken(path);
    throw err;
  }
}

export async function holderOr422(tx: Db, id: number, lang: Lang): Promise<Holder> {
  const [h] = await tx.select().from(accountHolders).where(eq(accountHolders.id, id));
  if (!h) throw invalidField(lang, 'holderId', 'validation.holderUnknown');
  return h;
}
