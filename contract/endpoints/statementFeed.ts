/**
 * A receiving account's bank feed (docs/STATEMENTS.md "Bank feed (SFTP)"): the bank's host-to-host SFTP
 * folder, polled by a job; each new file imported once as the bank's own statement (`source: feed`), which
 * pays by itself (contract/statementSource.ts). Where "the bank's word" comes from is a money decision:
 * saving or deleting a feed takes the caller's Google code and is finance's (or the super administrator's),
 * and a feed switched on or changed while on waits for a second platform user (contract/doors.ts).
 * The private key is written, never read back: answers say only whether one is set.
 */
import * as z from 'zod/mini';
import { endpoint } from '../endpoint.ts';
import { code6, id, listOf, noControls, okFlag, page, pageSize, strictObject } from '../schemas.ts';

/** Reading a feed's settings and files. */
const grants = { platform: ['operator', 'finance'] } as const;
/** Choosing where the bank's word comes from, and trying it. */
const moneyGrants = { platform: ['finance'] } as const;

/** At most this many wildcards (`*`, `?`) in a file-name pattern. */
export const maxPatternWildcards = 4;

/**
 * Whether a file name matches a feed's pattern: `*` any run of characters, `?` one, anything else itself,
 * case-insensitively, the whole name. Walked with one remembered star (the classic two-pointer match): at
 * most name × pattern steps, no regular expression and no backtracking blow-up whatever the name.
 */
export function matchesPattern(pattern: string, name: string): boolean {
  const p = pattern.toLowerCase();
  const n = name.toLowerCase();
  let i = 0;
  let j = 0;
  let star = -1;
  let resume = 0;
  while (j < n.length) {
    if (i < p.length && (p[i] === '?' || (p[i] !== '*' && p[i] === n[j]))) {
      i++;
      j++;
    } else if (i < p.length && p[i] === '*') {
      star = i++;
      resume = j;
    } else if (star >= 0) {
      i = star + 1;
      j = ++resume;
    } else return false;
  }
  while (i < p.length && p[i] === '*') i++;
  return i === p.length;
}

/** A host name or an IP address (IPv6 without brackets). */
const host = z.string().check(
  z.trim(),
  z.regex(/^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.?)*|[0-9A-Fa-f:.]{2,45})$/, {
    message: 'validation.sshHost',
  }),
  z.maxLength(253, { message: 'validation.sshHost' }),
);
const port = z.coerce.number().check(z.int(), z.minimum(1), z.maximum(65535));
const username = z
  .string()
  .check(z.trim(), z.regex(/^[A-Za-z0-9._-]{1,64}$/, { message: 'validation.sshUser' }));
/** The server's host key as `ssh-keygen -lf` and `ssh` print it: `SHA256:` and 43 base64 characters. */
const fingerprint = z.string().check(
  z.trim(),
  z.regex(/^SHA256:[A-Za-z0-9+/]{43}=?$/, { message: 'validation.sshFingerprint' }),
  z.overwrite((v) => v.replace(/=$/, '')),
);
/** The folder on the bank's server: a path without `..` or control characters (`.`: the login's home). */
const folder = z.string().check(
  z.trim(),
  z.minLength(1, { message: 'validation.required' }),
  z.maxLength(512),
  noControls,
  z.refine((v) => !v.split('/').includes('..'), { message: 'validation.feedFolder' }),
);
/** A file-name glob: letters, digits, `.`, `_`, `-`, and at most four `*` or `?`. */
const pattern = z.string().check(
  z.trim(),
  z.regex(/^[A-Za-z0-9._*?-]{1,64}$/, { message: 'validation.feedPattern' }),
  z.refine((v) => (v.match(/[*?]/g)?.length ?? 0) <= maxPatternWildcards, {
    message: 'validation.feedPattern',
  }),
);
/** An unencrypted private key as OpenSSH (or PEM) writes it; the server parses it before keeping it. */
const privateKey = z.string().check(
  z.trim(),
  z.maxLength(16_384),
  z.regex(/^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]+-----END [A-Z0-9 ]*PRIVATE KEY-----$/, {
    message: 'validation.privateKey',
  }),
);

export const statementFeedRow = z.object({
  id: z.number(),
  accountId: z.number(),
  host: z.string(),
  port: z.number(),
  username: z.string(),
  /** Whether a private key is kept; the key itself is never answered. */
  keySet: z.boolean(),
  hostKeyFingerprint: z.string(),
  folder: z.string(),
  pattern: z.string(),
  enabled: z.boolean(),
  /** The user whose name the feed imports in (who saved it). */
  importAs: z.nullable(z.string()),
  lastPolledAt: z.nullable(z.string()),
  lastError: z.nullable(z.string()),
  consecutiveFailures: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StatementFeedRow = z.output<typeof statementFeedRow>;

export const statementFeedFileRow = z.object({
  id: z.number(),
  remoteName: z.string(),
  size: z.number(),
  mtime: z.string(),
  sha256: z.nullable(z.string()),
  importId: z.nullable(z.number()),
  /** Why the file was refused (in English, as the alert said it); null when imported. */
  error: z.nullable(z.string()),
  firstSeenAt: z.string(),
  importedAt: z.nullable(z.string()),
});
export type StatementFeedFileRow = z.output<typeof statementFeedFileRow>;

export const statementFeed = {
  /** The account's feed (null: none), without its key. */
  get: endpoint({
    method: 'GET',
    path: '/statementFeed/get',
    caller: 'platform',
    grants,
    input: z.object({ accountId: id }),
    output: z.object({
      feed: z.nullable(statementFeedRow),
      /** The request waiting for a second person to switch the feed on as asked (null: none). */
      pending: z.nullable(
        z.object({ approvalId: z.number(), requestedBy: z.string(), requestedAt: z.string() }),
      ),
    }),
  }),
  /**
   * Creates or replaces the account's feed, on the caller's Google code; the caller becomes the user it
   * imports as. The private key is required when creating, kept when absent on a change. A feed switched
   * on, or changed while on, is not saved but asked of a second platform user (errno approvalRequested,
   * with `approvalId`); while that waits, only switching the feed off (which drops the request) is taken.
   */
  save: endpoint({
    method: 'POST',
    path: '/statementFeed/save',
    caller: 'platform',
    grants: moneyGrants,
    input: strictObject({
      accountId: id,
      host,
      port: z._default(port, 22),
      username,
      privateKey: z.optional(privateKey),
      hostKeyFingerprint: fingerprint,
      folder,
      pattern,
      enabled: z._default(z.boolean(), true),
      code: code6,
    }),
    output: statementFeedRow,
  }),
  /**
   * Deletes the account's feed with the record of its files (the imports stay), and drops a request
   * waiting to switch it on, on the caller's Google code.
   */
  delete: endpoint({
    method: 'POST',
    path: '/statementFeed/delete',
    caller: 'platform',
    grants: moneyGrants,
    input: strictObject({ accountId: id, code: code6 }),
    output: okFlag,
  }),
  /**
   * Connects with the saved settings (the host key checked), lists the folder and answers the files
   * matching the pattern; a failure is answered as `error`, in the caller's language. Imports nothing.
   */
  test: endpoint({
    method: 'POST',
    path: '/statementFeed/test',
    caller: 'platform',
    grants: moneyGrants,
    input: strictObject({ accountId: id }),
    output: z.object({
      ok: z.boolean(),
      error: z.nullable(z.string()),
      files: z.array(z.object({ name: z.string(), size: z.number(), mtime: z.string() })),
    }),
  }),
  /** The files the feed downloaded, newest first: imported or refused with the reason. */
  files: endpoint({
    method: 'GET',
    path: '/statementFeed/files',
    caller: 'platform',
    grants,
    input: z.object({ accountId: id, page, pageSize }),
    output: listOf(statementFeedFileRow),
  }),
};
