/**
 * The SFTP side of a bank feed (docs/STATEMENTS.md "Bank feed (SFTP)"), through `ssh2`: connect with the
 * feed's private key, refuse any server whose host key is not the pinned one (no trust on first use), list
 * a folder, download a file up to a cap. Every step has a deadline; a failure is a `FeedError` naming a
 * message key (`statementFeed.error.*`) and its parameters, never the key or anything sealed. Never call it
 * inside a database transaction.
 */
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import ssh2 from 'ssh2';

/** Connecting, and each step after it, must finish within this long. */
export const feedTimeoutMs = 15_000;

/** A failure of the bank's server or of the connection: a message key and its parameters. */
export class FeedError extends Error {
  constructor(
    readonly key: string,
    readonly params: Record<string, string | number> = {},
  ) {
    super(key);
  }
}

export interface SftpTarget {
  host: string;
  port: number;
  username: string;
  privateKey: string;
  /** `SHA256:<base64>` as OpenSSH prints it. */
  hostKeyFingerprint: string;
}

export interface RemoteFile {
  name: string;
  size: number;
  /** Seconds since the epoch. */
  mtime: number;
}

/** OpenSSH's fingerprint of a public key blob: `SHA256:` and the digest in base64 without padding. */
export const fingerprintOf = (key: Buffer) =>
  `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;

/** Whether `text` reads as a private key ssh2 can use (unencrypted); answers the reason when it does not. */
export function keyProblem(text: string): string | null {
  const parsed = ssh2.utils.parseKey(text);
  if (parsed instanceof Error) return parsed.message;
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key?.isPrivateKey()) return 'not a private key';
  return null;
}

/** A promise that fails with `key` after `ms`, calling `onTimeout` first. */
function deadline<T>(work: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new FeedError('statementFeed.error.timeout', { seconds: Math.round(ms / 1000) }));
    }, ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** An open SFTP session on a feed's server. */
export interface FeedSession {
  list(folder: string): Promise<RemoteFile[]>;
  /** The file's bytes; refused (`tooLarge`) past `maxBytes`, counted as they arrive. */
  download(folder: string, name: string, maxBytes: number): Promise<Buffer>;
}

const isRegular = (mode: number) => (mode & 0o170000) === 0o100000;

/** A name as a server might give it that is no plain file name in the folder. */
const oddName = (name: string) => name === '.' || name === '..' || /[/\p{Cc}]/u.test(name);

function sessionOf(sftp: SFTPWrapper, timeoutMs: number, abort: () => void): FeedSession {
  return {
    list(folder) {
      return deadline(
        new Promise<RemoteFile[]>((resolve, reject) =>
          sftp.readdir(folder, (err, entries) => {
            if (err)
              return reject(new FeedError('statementFeed.error.folder', { folder, reason: err.message }));
            resolve(
              entries
                .filter((e) => isRegular(e.attrs.mode) && !oddName(e.filename))
                .map((e) => ({ name: e.filename, size: e.attrs.size, mtime: e.attrs.mtime })),
            );
          }),
        ),
        timeoutMs,
        abort,
      );
    },
    download(folder, name, maxBytes) {
      return deadline(
        new Promise<Buffer>((resolve, reject) => {
          const chunks: Buffer[] = [];
          let total = 0;
          const stream = sftp.createReadStream(posix.join(folder, name));
          stream.on('data', (chunk: Buffer) => {
            total += chunk.length;
            if (total > maxBytes) {
              stream.destroy();
              reject(new FeedError('statementFeed.error.tooLarge', { name, max: maxBytes }));
              return;
            }
            chunks.push(chunk);
          });
          stream.on('error', (err: Error) =>
            reject(new FeedError('statementFeed.error.download', { name, reason: err.message })),
          );
          stream.on('end', () => resolve(Buffer.concat(chunks)));
        }),
        timeoutMs,
        abort,
      );
    },
  };
}

/**
 * Connects to a feed's server, checks its host key against the pinned fingerprint, opens SFTP and runs
 * `work` with the session; always closes the connection. Refusals: `hostKey` (another key: nothing sent
 * after it), `auth`, `connect`, `timeout`.
 */
export async function withFeedSession<T>(
  target: SftpTarget,
  work: (session: FeedSession) => Promise<T>,
  timeoutMs = feedTimeoutMs,
): Promise<T> {
  const conn = new ssh2.Client();
  let seenKey: string | null = null;
  const abort = () => conn.end();
  try {
    const sftp = await deadline(
      new Promise<SFTPWrapper>((resolve, reject) => {
        conn.on('error', (err: Error & { level?: string }) => {
          if (seenKey !== null && seenKey !== target.hostKeyFingerprint)
            reject(
              new FeedError('statementFeed.error.hostKey', {
                expected: target.hostKeyFingerprint,
                found: seenKey,
              }),
            );
          else if (err.level === 'client-authentication')
            reject(new FeedError('statementFeed.error.auth', { user: target.username }));
          else reject(new FeedError('statementFeed.error.connect', { reason: err.message }));
        });
        conn.on('close', () => reject(new FeedError('statementFeed.error.connect', { reason: 'closed' })));
        conn.on('ready', () =>
          conn.sftp((err, s) =>
            err ? reject(new FeedError('statementFeed.error.connect', { reason: err.message })) : resolve(s),
          ),
        );
        conn.connect({
          host: target.host,
          port: target.port,
          username: target.username,
          privateKey: target.privateKey,
          readyTimeout: timeoutMs,
          // The pinned key or nothing: ssh2 hands the server's key blob before authenticating.
          hostVerifier: (key: Buffer) => {
            seenKey = fingerprintOf(key);
            return seenKey === target.hostKeyFingerprint;
          },
        });
      }),
      timeoutMs,
      abort,
    );
    return await work(sessionOf(sftp, timeoutMs, abort));
  } finally {
    conn.end();
  }
}
