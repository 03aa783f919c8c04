import { eq } from 'drizzle-orm';
import { endpoints } from '../../../contract/index.ts';
import { sessions } from '../../db/schema.ts';
import { handle } from '../../http/handle.ts';
import { readParameter } from '../../lib/parameters.ts';
import { checkGoogleCode } from './googleCode.ts';

/**
 * The money session (docs/SECURITY.md): one Google code, spent as any, lets this signed-in session send
 * `session` for the code of queue decisions (the doors whose input takes `moneyCode`) for
 * `money_session_minutes`. It belongs to the session, not the user: another browser, a new sign-in, a
 * revoked session never inherits it. Each decision is logged as any other, marked as confirmed by it.
 */

export const moneySessionRoutes = [
  handle(endpoints.auth.moneySessionOpen, async ({ input, user, tx, deps, req, audit }) => {
    audit({ target: `user:${user.id}` });
    const refused = await checkGoogleCode(tx, deps, user, req.ip, input.code);
    if (refused) return refused;
    const minutes = await readParameter(tx, 'money_session_minutes');
    const until = new Date(deps.clock.now().getTime() + minutes * 60_000);
    await tx.update(sessions).set({ moneyUntil: until }).where(eq(sessions.tokenHash, user.tokenHash));
    audit({ target: `user:${user.id}`, detail: { until: until.toISOString() } });
    return { until: until.toISOString() };
  }),

  handle(endpoints.auth.moneySessionEnd, async ({ user, tx, audit }) => {
    audit({ target: `user:${user.id}` });
    await tx.update(sessions).set({ moneyUntil: null }).where(eq(sessions.tokenHash, user.tokenHash));
    return { ok: true as const };
  }),
];
