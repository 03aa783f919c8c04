import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints } from '../../../contract/index.ts';
import { roles } from '../../db/schema.ts';
import { engines, startTestServer, type TestServer } from '../../test/harness.ts';
import { builtinRoles, upgradeBuiltinRoles } from './builtin.ts';

/**
 * What the built-in roles hold, derived from the endpoints' `grants` and committed as a snapshot (the
 * lists they replaced were hand-kept): a change to a built-in role shows in its diff and is made on purpose
 * (`vitest -u` writes it).
 */
function heldByBuiltinRoles(): string {
  const lines: string[] = [];
  for (const kind of ['platform', 'merchant'] as const) {
    for (const role of builtinRoles[kind]) {
      lines.push(`${kind} ${role.key}`, ...[...role.perms()].sort().map((p) => `  ${p}`));
    }
  }
  return `${lines.join('\n')}\n`;
}

describe('built-in roles', () => {
  it('hold the totals and the proof image wherever they hold the list the console shows them on', () => {
    const needsWithList = [
      ['GET /merchantOrder/list', ['GET /merchantOrder/totals', 'GET /merchantOrder/image']],
      ['GET /merchantPayout/list', ['GET /merchantPayout/totals']],
      ['GET /settlementPayment/list', ['GET /settlementPayment/info', 'GET /settlementPayment/image']],
      ['GET /settlementPayout/list', ['GET /settlementPayout/info', 'GET /settlementPayout/image']],
    ] as const;
    for (const kind of ['platform', 'merchant'] as const) {
      for (const role of builtinRoles[kind]) {
        const perms = role.perms();
        if (perms.includes('*')) continue;
        for (const [list, needs] of needsWithList) {
          if (perms.includes(list)) for (const n of needs) expect(perms, `${kind} ${role.key}`).toContain(n);
        }
      }
    }
  });
  it('hold what the committed snapshot says, each permission once', async () => {
    for (const kind of ['platform', 'merchant'] as const) {
      for (const role of builtinRoles[kind]) {
        const perms = role.perms();
        expect(new Set(perms).size, `${kind} ${role.key}`).toBe(perms.length);
      }
    }
    await expect(heldByBuiltinRoles()).toMatchFileSnapshot('./__snapshots__/builtin-roles.txt');
  });
});

const dashboard = endpoints.dashboard.summary.permission;
const payinExport = endpoints.merchantOrder.export.permission;

describe.each(engines)('built-in role upgrades on %s', (engine) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(engine);
  });
  afterAll(() => s.close());

  const operator = async () => {
    const [row] = await s.db
      .select()
      .from(roles)
      .where(and(eq(roles.kind, 'platform'), eq(roles.builtinKey, 'operator')));
    return row!;
  };
  const definition = () => builtinRoles.platform.find((r) => r.key === 'operator')!.perms();

  it('records what it seeded', async () => {
    const row = await operator();
    expect(row.seededPerms).toEqual(definition());
    expect(await upgradeBuiltinRoles(s.db)).toBe(0);
  });

  it('grants what a later version added, and keeps what an administrator removed removed', async () => {
    const row = await operator();
    // As a database of the version before: seeded without the dashboard; since then an administrator
    // took the pay-in export away.
    const before = definition().filter((p) => p !== dashboard);
    await s.db
      .update(roles)
      .set({ seededPerms: before, perms: before.filter((p) => p !== payinExport) })
      .where(eq(roles.id, row.id));
    expect(await upgradeBuiltinRoles(s.db)).toBe(1);
    const after = await operator();
    expect(after.perms).toContain(dashboard);
    expect(after.perms).not.toContain(payinExport);
    expect(after.seededPerms).toEqual(definition());
    // A second start changes nothing.
    expect(await upgradeBuiltinRoles(s.db)).toBe(0);
    expect((await operator()).perms).toEqual(after.perms);
  });

  it('only records roles seeded before the seeded set existed, granting nothing', async () => {
    const row = await operator();
    const held = definition().filter((p) => p !== dashboard);
    await s.db.update(roles).set({ seededPerms: null, perms: held }).where(eq(roles.id, row.id));
    expect(await upgradeBuiltinRoles(s.db)).toBe(0);
    const after = await operator();
    expect(after.perms).toEqual(held);
    expect(after.seededPerms).toEqual(definition());
  });

  it('takes posting and matching statements (money decisions) out of the operators an earlier version gave them to', async () => {
    const row = await operator();
    const posting = [endpoints.statement.accept.permission, endpoints.statement.match.permission];
    expect(definition()).not.toEqual(expect.arrayContaining([posting[0]]));
    const before = [...definition(), ...posting];
    await s.db.update(roles).set({ seededPerms: before, perms: before }).where(eq(roles.id, row.id));
    expect(await upgradeBuiltinRoles(s.db)).toBe(1);
    expect((await operator()).perms).toEqual(definition());
  });

  it("takes the simulator's controls out of built-in roles an earlier version gave them to, once", async () => {
    const row = await operator();
    const simulator = [endpoints.simulator.pay.permission, endpoints.simulator.payout.permission];
    // As a database of the version before the security review: the operator was seeded with them.
    const before = [...definition(), ...simulator];
    await s.db.update(roles).set({ seededPerms: before, perms: before }).where(eq(roles.id, row.id));
    expect(await upgradeBuiltinRoles(s.db)).toBe(1);
    expect((await operator()).perms).toEqual(definition());
    // An administrator who grants one again by hand keeps it: the withdrawal happens once.
    await s.db
      .update(roles)
      .set({ perms: [...definition(), simulator[0]!] })
      .where(eq(roles.id, row.id));
    expect(await upgradeBuiltinRoles(s.db)).toBe(0);
    expect((await operator()).perms).toContain(simulator[0]);
    await s.db.update(roles).set({ perms: definition() }).where(eq(roles.id, row.id));
  });

  it('upgrades the built-in roles of every merchant too', async () => {
    const m = await s.makeMerchant();
    const [finance] = await s.db
      .select()
      .from(roles)
      .where(and(eq(roles.merchantId, m.id), eq(roles.builtinKey, 'finance')));
    const before = finance!.perms.filter((p) => p !== dashboard);
    await s.db.update(roles).set({ seededPerms: before, perms: before }).where(eq(roles.id, finance!.id));
    expect(await upgradeBuiltinRoles(s.db)).toBeGreaterThanOrEqual(1);
    const [after] = await s.db.select().from(roles).where(eq(roles.id, finance!.id));
    expect(after!.perms).toContain(dashboard);
  });
});
