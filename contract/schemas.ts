/**
 * Shared value schemas, written with `zod/mini` so the console can import them cheaply.
 * A refinement's message is a locale key (`validation.*`); server and console translate it.
 */
import * as z from 'zod/mini';

/** Rejects keys the schema does not name, so a typo in a request is an error, not a silent no-op. */
export const strictObject = z.strictObject;

/**
 * A row id: a number, or digits from a query string. Only those two are coerced: `z.coerce` alone would
 * take `[1]` or `true` for id 1 and act on a row the caller never named.
 */
export const id = z.pipe(
  z.union([z.number(), z.string().check(z.regex(/^\d{1,10}$/, { message: 'validation.invalid' }))]),
  z.coerce.number<string | number>().check(z.int(), z.minimum(1), z.maximum(2_147_483_647)),
);

export const username = z
  .string()
  .check(
    z.trim(),
    z.minLength(1, { message: 'validation.required' }),
    z.maxLength(64),
    z.regex(/^[A-Za-z0-9_.@-]+$/, { message: 'validation.username' }),
  );

/** What a sign-in form sends: any non-empty password, never echoed or logged. */
export const passwordInput = z
  .string()
  .check(z.minLength(1, { message: 'validation.required' }), z.maxLength(256));

/** A password a user sets for themselves: digits, upper and lower case, more than 8 characters. */
export const newPassword = z.string().check(
  z.maxLength(128),
  z.refine((v) => v.length > 8 && /\d/.test(v) && /[a-z]/.test(v) && /[A-Z]/.test(v), {
    message: 'validation.passwordRule',
  }),
);

/** A password an administrator sets for another user: longer than 6 characters. */
export const adminPassword = z.string().check(
  z.maxLength(128),
  z.refine((v) => v.length > 6, { message: 'validation.adminPasswordRule' }),
);

/** A six-digit verification code (Google Authenticator or e-mail). */
export const code6 = z.string().check(z.regex(/^\d{6}$/, { message: 'validation.code6' }));

/** What a door that takes the money session is sent instead of a code while the session is open. */
export const moneySessionCode = 'session';

/**
 * The Google code of a door that works a queue (a decision on something already waiting: a settlement, an
 * approval, a recharge, an order's mark or supplement, a statement line, a slip's line): six digits, or
 * `session` while the caller's money session is open (one code unlocks a few minutes of such decisions,
 * each still logged; docs/SECURITY.md). Doors that create money movements or change settings take `code6`.
 */
export const moneyCode = z.string().check(z.regex(/^(\d{6}|session)$/, { message: 'validation.code6' }));

/**
 * A bank's unique transaction reference (UTR), 6 to 32 letters and digits. Trimmed and upper-cased
 * here, the one place every input path (checks, supplements, marks, simulator, filters) goes through,
 * so a change of case or stray blanks can neither miss a stored UTR nor pass it off as a new one.
 */
export const utr = z
  .string()
  .check(z.trim(), z.toUpperCase(), z.regex(/^[A-Z0-9]{6,32}$/, { message: 'validation.utr' }));
/** The same normal form for a UTR that does not come through a schema (a channel's report, a filter). */
export const normalUtr = (v: string) => v.trim().toUpperCase();

/** Why a person moved money by hand (a mark, a retry, a recharge decision): kept with it and in the log. */
export const actionReason = z
  .string()
  .check(z.trim(), z.minLength(1, { message: 'validation.required' }), z.maxLength(200));

export const email = z.string().check(z.trim(), z.maxLength(254), z.email({ message: 'validation.email' }));

/** One line of plain text: no control characters (they garble a Telegram message, an export, a log line). */
export const noControls = z.regex(/^\P{Cc}*$/u, { message: 'validation.controlChars' });
/** Plain text of several lines: line breaks and tabs, no other control characters. */
export const noControlsButBreaks = z.regex(/^[\P{Cc}\t\n\r]*$/u, {
  message: 'validation.controlChars',
});

/** A person's display name: one line, no control characters. */
export const nickname = z
  .string()
  .check(z.trim(), z.minLength(1, { message: 'validation.required' }), z.maxLength(64), noControls);

/** An Indian bank branch code (IFSC) typed in any case: four letters, a zero, six letters or digits. */
export const ifscAnyCase = z
  .string()
  .check(z.trim(), z.toUpperCase(), z.regex(/^[A-Z]{4}0[A-Z0-9]{6}$/, { message: 'validation.ifsc' }));

/**
 * A bank transfer's reference as people type it: trimmed and upper case, so that it is one reference in
 * any case (a recharge's, a commission payment's), 1–100 characters, then `more` checks.
 */
export const bankReference = (...more: z.core.$ZodCheck<string>[]) =>
  z
    .string()
    .check(
      z.trim(),
      z.toUpperCase(),
      z.minLength(1, { message: 'validation.required' }),
      z.maxLength(100),
      ...more,
    );

/** A list's search box: text a name, code or number contains. */
export const searchText = z.optional(z.string().check(z.maxLength(100)));

/** A proof image as the console uploads it: PNG, JPEG or WebP, at most 2 MB, in base64. */
export const proofImage = {
  filename: z.string().check(z.maxLength(200)),
  mime: z.enum(['image/png', 'image/jpeg', 'image/webp']),
  dataBase64: z.string().check(z.maxLength(2_800_000)),
};
/** The request body a proof image fits in (its base64 and the rest). */
export const proofImageBodyBytes = 3 * 1024 * 1024;
/** The stored image's id, which the action that attaches it names. */
export const uploadedImage = z.object({ imageId: z.number() });

export const shortText = z.string().check(z.trim(), z.maxLength(500));

/** Rows a list page holds: 1 to 100, `size` unless asked (20 for most lists, 50 for queues and reports). */
export const pageSizeOf = (size: number) =>
  z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100)), size);
export const pageSize = pageSizeOf(20);
export const page = z.optional(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100_000)));
/** Opaque keyset cursor handed out as `nextCursor`. */
export const cursor = z.optional(z.string().check(z.maxLength(200), z.regex(/^[A-Za-z0-9_-]+$/)));
/** A list input's paging as its contract declares it (server/list/engine.ts reads either kind). */
export const cursorPaging = (size = 20) => ({ cursor, pageSize: pageSizeOf(size) });
export const pagePaging = (size = 20) => ({ page, pageSize: pageSizeOf(size) });

/** ISO 8601 instant; stored in UTC. */
export const isoTime = z.iso.datetime({ offset: true });

export const userKind = z.enum(['platform', 'merchant']);
export type UserKind = z.infer<typeof userKind>;

export const userStatus = z.enum(['active', 'disabled']);

/** A list answer: `total` counts at most `totalCap` rows and `totalCapped` says when it stopped. */
export function listOf<T extends z.ZodMiniType>(item: T) {
  return z.object({
    list: z.array(item),
    total: z.number(),
    totalCapped: z.optional(z.boolean()),
    nextCursor: z.nullable(z.string()),
  });
}

export const empty = z.object({});
export const okFlag = z.object({ ok: z.literal(true) });
