import { and, desc, eq, gte, like, lt, lte, or, sql } from 'drizzle-orm';
import { endpoints } from '../../../contract/index.ts';
import { emailCodes, mailOutbox, operationLog } from '../../db/schema.ts';
import { handle } from '../../http/handle.ts';
import { cappedCount, dbTime, decodeCursor, encodeCursor } from '../../lib/paging.ts';
import { emailCodeRules } from '../auth/emailCode.ts';

export const systemRoutes = [
  handle(endpoints.health.check, async ({ tx, deps }) => {
    await tx.execute(sql`select 1`);
    return { status: 'ok' as const, db: deps.database.engine };
  }),

  handle(endpoints.log.list, async ({ input, user, tx }) => {
    // Platform users read the whole trail; a merchant user only its merchant's.
    const filters = and(
      user.kind === 'merchant' ? eq(operationLog.merchantId, user.merchantId!) : undefined,
      input.username
        ? like(operationLog.username, `${input.username.replace(/[\\%_]/g, '\\$&')}%`)
        : undefined,
      input.action ? like(operationLog.action, `${input.action.replace(/[\\%_]/g, '\\$&')}%`) : undefined,
      input.outcome ? eq(operationLog.outcome, input.outcome) : undefined,
      input.from ? gte(operationLog.at, dbTime(input.from, 'from')) : undefined,
    );
    // The next page carries the cursor bound only, not the range's upper bound again (PERFORMANCE.md rule 1).
    const c = input.cursor ? decodeCursor(input.cursor) : undefined;
    const bound = c
      ? or(lt(operationLog.at, c.at), and(eq(operationLog.at, c.at), lt(operationLog.id, c.id)))
      : input.to
        ? lte(operationLog.at, dbTime(input.to, 'to'))
        : undefined;
    const rows = await tx
      .select()
      .from(operationLog)
      .where(and(filters, bound))
      .orderBy(desc(operationLog.at), desc(operationLog.id))
      .limit(input.pageSize + 1);
    const more = rows.length > input.pageSize;
    const page = rows.slice(0, input.pageSize);
    const last = page.at(-1);
    const counted = await cappedCount(
      tx,
      sql`${operationLog}`,
      and(filters, input.to ? lte(operationLog.at, dbTime(input.to, 'to')) : undefined),
    );
    return {
      list: page.map((r) => ({
        id: r.id,
        at: r.at.toISOString(),
        userId: r.userId,
        username: r.username,
        merchantId: r.merchantId,
        ip: r.ip,
        requestId: r.requestId,
        action: r.action,
        target: r.target,
        outcome: r.outcome,
        errno: r.errno,
        detail: r.detail,
      })),
      ...counted,
      nextCursor: more && last ? encodeCursor(last.at, last.id) : null,
    };
  }),

  handle(endpoints.mailOutbox.list, async ({ input, tx, deps, audit }) => {
    // mail_outbox.id is a 4-byte serial.
    const c = input.cursor ? decodeCursor(input.cursor, 2_147_483_647) : undefined;
    const filters = input.to ? like(mailOutbox.to, `%${input.to.replace(/[\\%_]/g, '\\$&')}%`) : undefined;
    const rows = await tx
      .select({ mail: mailOutbox, codeUsedAt: emailCodes.usedAt, codeExpiresAt: emailCodes.expiresAt })
      .from(mailOutbox)
      .leftJoin(emailCodes, eq(emailCodes.id, mailOutbox.emailCodeId))
      .where(and(filters, c ? lt(mailOutbox.id, c.id) : undefined))
      .orderBy(desc(mailOutbox.id))
      .limit(input.pageSize + 1);
    const more = rows.length > input.pageSize;
    const page = rows.slice(0, input.pageSize);
    const last = page.at(-1)?.mail;
    const counted = await cappedCount(tx, sql`${mailOutbox}`, filters);
    audit({ detail: { to: input.to ?? null, messages: page.map((r) => r.mail.id) } });
    const now = deps.clock.now();
    return {
      list: page.map(({ mail, codeUsedAt, codeExpiresAt }) => {
        const spent = codeSpent(mail, codeUsedAt, codeExpiresAt, now);
        return {
          id: mail.id,
          at: mail.at.toISOString(),
          to: mail.to,
          subject: spent ? maskCodes(mail.subject) : mail.subject,
          body: spent && mail.body !== null ? maskCodes(mail.body) : mail.body,
          transport: mail.transport,
          status: mail.status,
          error: mail.error,
        };
      }),
      ...counted,
      nextCursor: more && last ? encodeCursor(last.at, last.id) : null,
    };
  }),
];

/**
 * True when the code a stored message carries can no longer be used: used, expired, or (a message that
 * names no code: written before messages were linked, or its code deleted with its user) as old as a
 * code ever lives.
 */
function codeSpent(
  mail: { at: Date; emailCodeId: number | null },
  usedAt: Date | null,
  expiresAt: Date | null,
  now: Date,
): boolean {
  if (mail.emailCodeId !== null && expiresAt !== null) return usedAt !== null || expiresAt <= now;
  return now.getTime() - mail.at.getTime() >= emailCodeRules.ttlMs;
}

/** Codes are runs of digits (six today); a spent one is shown as dots of its length. */
const maskCodes = (text: string) => text.replace(/(?<!\d)\d{4,}(?!\d)/g, (d) => '•'.repeat(d.length));
