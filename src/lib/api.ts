import { FetchError, ofetch } from 'ofetch';
import type { Endpoint, Input, Output } from '../../contract/index.ts';
import { errno } from '../../contract/index.ts';
import { getToken } from './cookie.ts';
import { t } from './i18n.ts';
import { alert, toast } from './notify.ts';
import { localLogout } from './session.ts';
import { recordWrite } from './sessionLog.ts';
import { $settings } from './settings.ts';

/** A field error of a 422 answer, already in the request's language. */
export interface FieldError {
  path: string;
  message: string;
}

/** A non-zero errno from the API, or a transport failure (`errno` -1). */
export class ApiError extends Error {
  constructor(
    readonly errno: number,
    message: string,
    readonly data: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** Field errors of a validation failure, keyed by the first path segment. */
  get fields(): Record<string, string> {
    const out: Record<string, string> = {};
    const list = (this.data as { fields?: FieldError[] } | null)?.fields;
    if (Array.isArray(list)) for (const f of list) out[String(f.path).split('.')[0] ?? ''] ??= f.message;
    return out;
  }
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Errnos the caller shows itself (for example 422 next to the fields): no alert for these. */
  quiet?: readonly number[];
}

interface Envelope {
  errno?: number;
  errmsg?: string;
  code?: number;
  message?: string;
  data?: unknown;
}

const transportFailed = -1;
let reloading = false;

const client = ofetch.create({ baseURL: '/api', timeout: 20_000, retry: 0 });

/** The headers every call carries: the console's language and the session's token. */
export function requestHeaders(): Record<string, string> {
  const out: Record<string, string> = {
    'Accept-Language': $settings.get().language === 'zh_CN' ? 'zh-CN,zh;q=0.9' : 'en',
  };
  const token = getToken();
  if (token) out['admin-token'] = token;
  return out;
}

function cleanQuery(input: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries((input ?? {}) as Record<string, unknown>)) {
    if (v !== undefined && v !== null && v !== '') out[k] = v;
  }
  return out;
}

/**
 * Calls an endpoint of the registry and answers its typed data. Every error behaviour of the spec's
 * catalogue lives here: re-login on 501/506, 1002 passed through, alerts, and the 2 s / 5 s toasts.
 */
export async function api<E extends Endpoint>(
  endpoint: E,
  input: Input<E>,
  options: CallOptions = {},
): Promise<Output<E>> {
  let body: Envelope;
  // A signed-in person's writes go to the session's log (src/lib/sessionLog.ts), refusals included.
  const record = (errno?: number, message?: string) => {
    if (endpoint.method === 'POST' && endpoint.caller !== 'public')
      recordWrite(endpoint.id, input, errno === undefined ? {} : { errno, message });
  };
  try {
    body = await client<Envelope>(endpoint.path, {
      method: endpoint.method,
      headers: requestHeaders(),
      signal: options.signal,
      ...(endpoint.method === 'GET' ? { query: cleanQuery(input) } : { body: input ?? {} }),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    // A refusal comes with the HTTP status that says so (401, 403, 422, …) and the envelope: read as any answer.
    const refusal = error instanceof FetchError ? (error.data as Envelope | undefined) : undefined;
    if (typeof refusal?.errno === 'number') body = refusal;
    else {
      const status = error instanceof FetchError ? error.statusCode : undefined;
      record(transportFailed, t('app.errors.tryLater'));
      toast('error', t('app.errors.tryLater'), 5000);
      throw new ApiError(transportFailed, `${status ?? ''} ${(error as Error).message}`.trim(), null);
    }
  }

  if (body.errno === undefined && body.code !== undefined) {
    const message = body.message ?? t('app.errors.failed');
    record(body.code === 0 ? undefined : body.code, message);
    if (body.code === 0) return body.data as Output<E>;
    toast('error', message, 2000);
    throw new ApiError(body.code, message, body.data);
  }

  const code = body.errno ?? transportFailed;
  const message = body.errmsg || t(`errno.${code}`);
  record(code === errno.ok ? undefined : code, message);
  if (code === errno.ok) return body.data as Output<E>;
  if (options.quiet?.includes(code)) {
    // the caller shows this one itself
  } else if (code === errno.notSignedIn || code === errno.sessionExpired) {
    await signInAgain();
  } else if (code !== errno.secondStepNeeded) {
    showRefusal(code, message);
  }
  throw new ApiError(code, message, body.data);
}

/** A refusal as every call shows it: an alert with its errno and message. */
export function showRefusal(code: number, message: string): void {
  void alert(t('app.errors.title'), `${code}: ${message}`);
}

/**
 * The session ended (501/506): say so once, however many calls found out at the same time, forget the
 * session here and reload to the sign-in page.
 */
export async function signInAgain(): Promise<void> {
  if (reloading) return;
  reloading = true;
  await alert(t('app.errors.reloginTitle'), t('app.errors.relogin'));
  localLogout();
  location.reload();
}

export function isApiError(error: unknown, code?: number): error is ApiError {
  return error instanceof ApiError && (code === undefined || error.errno === code);
}

/** A file's bytes as base64, as endpoints that take a file want them (without the `data:` prefix FileReader puts in front). */
export function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}
