import { and, eq, gte, like, sql } from 'drizzle-orm';
import { endpoints } from '../../../contract/index.ts';
import { emailCodes, mailOutbox, operationLog } from '../../db/schema.ts';
import { handle } from '../../http/handle.ts';
import { dbTime } from '../../lib/paging.ts';
import { keysetList } from '../../list/engine.ts';
import { escapeLike, merchantScope, textPrefix } from '../../list/scope.ts';
import { emailCodeRules } from '../auth/emailCode.ts';

export const systemRoutes = [
  handle(endpoints.health.check, async ({ tx, deps }) => {
    await tx.execute(sql`select 1`);
    return { status: 'ok' as const, db: deps.database.engine };
  }),

  handle(endpoints.log.list, async ({ input, user, tx, req }) => {
    // Platform users read the whole trail; a merchant user only its merchant's.
    const merchantId = merchantScope(user, undefined);
    const { page, ...counted } = await keysetList(
      tx,
      {
        query: tx.select().from(operationLog).$dynamic(),
        table: operationLog,
        where: and(
          merchantId === undefined ? undefined : eq(operationLog.merchantId, merchantId),
          input.username ? textPrefix(operationLog.username, input.username) : undefined,
          input.action ? textPrefix(operationLog.action, input.action) : undefined,
          input.outcome ? eq(operationLog.outcome, input.outcome) : undefined,
          input.from ? gte(operationLog.at, dbTime(input.from, 'from')) : undefined,
        ),
        keyset: {
          at: operationLog.at,
          id: operationLog.id,
          placeOf: (r) => ({ at: r.at, id: r.id }),
          until: input.to ? dbTime(input.to, 'to') : undefined,
        },
      },
      input,
      req.lang,
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
    };
  }),

  handle(endpoints.mailOutbox.list, async ({ input, tx, deps, req, audit }) => {
    const { page, ...counted } = await keysetList(
      tx,
      {
        query: tx
          .select({ mail: mailOutbox, codeUsedAt: emailCodes.usedAt, codeExpiresAt: emailCodes.expiresAt })
          .from(mailOutbox)
          .leftJoin(emailCodes, eq(emailCodes.id, mailOutbox.emailCodeId))
          .$dynamic(),
        table: mailOutbox,
        // Case as typed, anywhere in the address (LIKE, not ILIKE).
        where: input.to ? like(mailOutbox.to, `%${escapeLike(input.to)}%`) : undefined,
        // By id alone, the sending order; the cursor still carries the time.
        keyset: { id: mailOutbox.id, serialId: true, placeOf: (r) => ({ at: r.mail.at, id: r.mail.id }) },
      },
      input,
      req.lang,
    );
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
