import type { Readable } from 'node:stream';
import type * as z from 'zod/mini';
import type { Endpoint, Parsed } from '../../contract/endpoint.ts';
import type { Db } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import type { Refusal } from './errors.ts';
import type { Lang } from './i18n.ts';
import type { SessionUser } from './session.ts';

/** What the operation log records of a write, beyond who, when, where and which endpoint. */
export interface AuditEntry {
  target?: string;
  /** Changed fields with before and after (see `changes`). */
  changes?: Record<string, { before: unknown; after: unknown }>;
  detail?: Record<string, unknown>;
  /** For public endpoints (sign-in): who the attempt was for. */
  username?: string;
  userId?: number | null;
}

export interface RequestMeta {
  ip: string;
  requestId: string;
  userAgent: string;
  lang: Lang;
  /**
   * The caller's last write position (the `rlsn` cookie), read only when there is a read replica: its
   * routed reads wait for the replica to have replayed it (`withReader`, server/http/reader.ts).
   */
  readAfter?: bigint | undefined;
  /** The Google code was the money session's (`session`): the operation log says so. */
  moneySession?: boolean;
}

export interface HandlerContext<E extends Endpoint, U> {
  input: Parsed<E>;
  /** The signed-in user (null only on public endpoints). */
  user: U;
  /** A transaction for writes; the plain handle for reads. */
  tx: Db;
  deps: Deps;
  req: RequestMeta;
  /**
   * Describes this write for the operation log (every POST is logged; this adds what changed). A GET that
   * calls it is logged too: a read that matters (an export, the mail outbox).
   */
  audit(entry: AuditEntry): void;
  /** Runs after the transaction commits (sending mail, waking a job worker). */
  afterCommit(fn: () => Promise<void> | void): void;
}

/**
 * A file a `download` endpoint answers instead of the envelope (an export): streamed with its own
 * content type as an attachment. Whatever the handler refuses before it returns one is the envelope.
 */
export class FileAnswer {
  constructor(
    /** The file's name as the user knows it (`Content-Disposition` encodes it). */
    readonly filename: string,
    readonly contentType: string,
    readonly body: Readable,
  ) {}
}

/**
 * An answer's data already written as JSON in the endpoint's output shape (a list page written straight
 * from the database's values): the envelope carries it as it is. Its writer's tests check the shape.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

type UserOf<E extends Endpoint> = E['caller'] extends 'public' ? null : SessionUser;
/** What a handler of `E` is given: a named handler's parameter (`handle(endpoint, namedHandler)`). */
export type Context<E extends Endpoint> = HandlerContext<E, UserOf<E>>;
export type HandlerResult<E extends Endpoint> = z.output<E['output']> | Refusal | FileAnswer | JsonText;

export interface Route<E extends Endpoint = Endpoint> {
  endpoint: E;
  run(ctx: HandlerContext<E, UserOf<E>>): Promise<HandlerResult<E>>;
  /**
   * A POST whose handler waits on the network (re-sending a callback, asking a channel): it runs on the
   * plain handle instead of one transaction held open meanwhile, and writes its own transactions.
   */
  outsideTransaction?: boolean;
}

/** Binds a handler to its endpoint: input arrives validated, the user authenticated and authorised. */
export function handle<E extends Endpoint>(
  endpoint: E,
  run: (ctx: HandlerContext<E, UserOf<E>>) => Promise<HandlerResult<E>>,
  opts: { outsideTransaction?: boolean } = {},
): Route {
  return { endpoint, run, ...opts } as unknown as Route;
}
