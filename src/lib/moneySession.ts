import { useStore } from '@nanostores/react';
import { useEffect, useState } from 'react';
import type { Endpoint } from '../../contract/endpoint.ts';
import { moneyCode, moneySessionCode } from '../../contract/schemas.ts';
import { $user } from './session.ts';

/**
 * The money session on the console's side (docs/SECURITY.md): its end is the signed-in user's
 * `moneyUntil`, read with the user and moved when it is opened or ended here. The server decides; this
 * only spares the person a code the server would accept without it.
 */

/** When the money session ends (ms), or null when none is open now. */
export function moneySessionEnd(now = Date.now()): number | null {
  const until = $user.get()?.moneyUntil;
  const at = until ? Date.parse(until) : Number.NaN;
  return at > now ? at : null;
}

/**
 * `moneySessionEnd()` for a component: drawn again when the session opens or ends here, and when its time
 * runs out, so that nothing on screen says it is open after its end.
 */
export function useMoneySessionEnd(): number | null {
  useStore($user);
  const until = moneySessionEnd();
  const [, expired] = useState(0);
  useEffect(() => {
    if (until === null) return;
    const timer = window.setTimeout(() => expired((n) => n + 1), until - Date.now() + 50);
    return () => window.clearTimeout(timer);
  }, [until]);
  return until;
}

/** Records the money session's end (an ISO time, or null when it ended) on the signed-in user. */
export function setMoneySession(until: string | null): void {
  const user = $user.get();
  if (user) $user.set({ ...user, moneyUntil: until });
}

/** True when the endpoint is a queue door: its `code` may be the money session's. */
export function takesMoneySession(endpoint: Endpoint): boolean {
  return (endpoint.input as { shape?: Record<string, unknown> }).shape?.code === moneyCode;
}

/** The code to send: the one typed, else, at a queue door while the money session is open, `session`. */
export function codeFor(endpoint: Endpoint, typed: string): string {
  const code = typed.trim();
  return code === '' && takesMoneySession(endpoint) && moneySessionEnd() !== null ? moneySessionCode : code;
}

/** The input with its blank code taken by the money session where `codeFor` says so. */
export function withMoneySession<I>(endpoint: Endpoint, input: I): I {
  const code = (input as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || code.trim() !== '') return input;
  return { ...input, code: codeFor(endpoint, code) };
}
