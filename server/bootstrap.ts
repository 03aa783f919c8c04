import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { demoEnabled, simulatorOn } from './config.ts';
import { inTransaction } from './db/index.ts';
import { channels, userRoles, users } from './db/schema.ts';
import { type DemoAccount, type DemoSeed, demoPlatformUsers, seedDemo } from './demo.ts';
import type { Deps } from './deps.ts';
import { ensureAccounts, platformAccount } from './ledger/index.ts';
import { hashPassword } from './lib/crypto.ts';
import { errorForLog } from './lib/logger.ts';
import { syncOrderStatsZone } from './modules/dashboard/stats.ts';
import { seedBuiltinRoles, upgradeBuiltinRoles } from './modules/role/builtin.ts';

/** A password that meets the set-password rule: digits, upper and lower case, 16 characters. */
function generatedPassword(): string {
  const raw = randomBytes(12).toString('base64url').replace(/[-_]/g, 'x');
  return `Pg${raw}7`;
}

export interface FirstStart {
  adminPassword?: string;
  /** The demo merchants' owners, when the demo workspace was seeded at this start. */
  demo?: DemoAccount[];
  /** The demo's other platform users (maker–checker needs two), when the demo was seeded at this start. */
  demoPlatform?: { username: string; password: string; note: string }[];
  /** Demo pay-ins whose channel callback was lost: a UTR check finds the payment, a supplement settles it. */
  lostCallbacks?: DemoSeed['lostCallbacks'];
}

/**
 * First start on an empty database: the simulator channel (SIMULATOR, on with the demo), built-in
 * platform roles, the `admin` user, and (embedded database by default, or DEMO=1) the demo workspace
 * (server/demo.ts), which needs the simulator. Every later start finds them and does nothing.
 */
export async function bootstrap(deps: Deps): Promise<FirstStart> {
  const { config, database } = deps;
  const out: FirstStart = {};
  const simulator = simulatorOn(config, database.engine);
  await inTransaction(database.db, async (tx) => {
    // The built-in simulator channel lets the whole money flow run on one machine. It settles without a
    // bank, so it exists only with SIMULATOR on (the demo's default); off, one made earlier carries nothing.
    if (simulator)
      await tx
        .insert(channels)
        .values({
          code: 'simulator',
          name: 'Simulator',
          adapter: 'simulator',
          settings: { auto: false, successRate: 90, delayMs: 2000 },
        })
        .onConflictDoNothing();
    await ensureAccounts(
      tx,
      (['fee_income', 'channel_clearing', 'settlement_clearing', 'payout_clearing'] as const).map((k) =>
        platformAccount(k, 'INR'),
      ),
    );
    const roleIds = await seedBuiltinRoles(tx, 'platform', null);
    // Every start: built-in roles of the platform and of every merchant gain what this version added.
    await upgradeBuiltinRoles(tx);
    const [admin] = await tx.select({ id: users.id }).from(users).where(eq(users.username, 'admin'));
    if (!admin) {
      const password = config.adminPassword ?? generatedPassword();
      const [row] = await tx
        .insert(users)
        .values({
          kind: 'platform',
          username: 'admin',
          nickname: 'Administrator',
          passwordHash: await hashPassword(password),
        })
        .returning({ id: users.id });
      await tx.insert(userRoles).values({ userId: row!.id, roleId: roleIds.get('superAdmin')! });
      if (!config.adminPassword) out.adminPassword = password;
    }
  });
  // Dashboards bucket orders by business day: a changed BUSINESS_TIME_ZONE rebuilds the order stats.
  await syncOrderStatsZone(deps);
  if (demoEnabled(config, database.engine) && !simulator) {
    // Every demo order goes through the simulator.
    deps.logger.warn('demo workspace not seeded: it needs the simulator, and SIMULATOR=0 turns it off');
  } else if (demoEnabled(config, database.engine)) {
    // All or nothing, in its own transaction: a failed seed leaves an empty workspace (tried again at the
    // next start) and a server that still starts.
    const seeded = await seedDemo(deps).catch((err) => {
      deps.logger.error({ err: errorForLog(err) }, 'demo workspace not seeded');
      return null;
    });
    if (seeded) {
      out.demo = seeded.accounts;
      out.demoPlatform = demoPlatformUsers;
      out.lostCallbacks = seeded.lostCallbacks;
    }
  }
  return out;
}
