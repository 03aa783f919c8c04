import nodemailer from 'nodemailer';
import type { Db } from '../db/index.ts';
import { mailOutbox } from '../db/schema.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The e-mail code the message carries: once it is used or expired, reading the outbox masks it. */
  emailCodeId?: number;
}

/** Said at start-up without SMTP: where codes go instead, and who can read them. */
export const outboxNotice =
  'SMTP_URL is not set: e-mail codes (sign-in, password reset) are stored in the mail outbox instead of being sent; only super administrators can read it (Mail outbox screen).';

export interface Mailer {
  readonly transport: 'smtp' | 'outbox';
  /**
   * Queues a message in the caller's transaction. Without SMTP it is stored in the outbox for operators
   * to read; with SMTP, the returned function sends it once the transaction has committed.
   */
  send(tx: Db, message: MailMessage): Promise<(() => Promise<void>) | undefined>;
}

export function createMailer(opts: { smtpUrl?: string; from: string; db: () => Db }): Mailer {
  if (!opts.smtpUrl) {
    return {
      transport: 'outbox',
      async send(tx, m) {
        await tx.insert(mailOutbox).values({
          to: m.to,
          subject: m.subject,
          body: m.text,
          transport: 'outbox',
          status: 'stored',
          emailCodeId: m.emailCodeId ?? null,
        });
        return undefined;
      },
    };
  }
  const smtp = nodemailer.createTransport(opts.smtpUrl);
  return {
    transport: 'smtp',
    async send(_tx, m) {
      return async () => {
        let error: string | null = null;
        try {
          await smtp.sendMail({ from: opts.from, to: m.to, subject: m.subject, text: m.text });
        } catch (err) {
          error = (err as Error).message.slice(0, 500);
        }
        // The body of a sent message (it may hold a code) is not kept.
        await opts
          .db()
          .insert(mailOutbox)
          .values({
            to: m.to,
            subject: m.subject,
            body: null,
            transport: 'smtp',
            status: error ? 'failed' : 'sent',
            error,
          });
      };
    },
  };
}
