/**
 * The demo's agent and merchants, made through the real services two days before the 30 days begin:
 * each merchant with its owner, its payees, the way its own systems number orders, and (Masala Mart)
 * the day its callback receiver went down.
 */
import { eq } from 'drizzle-orm';
import { endpoints } from '../../contract/index.ts';
import { agents, merchants, users } from '../db/schema.ts';
import { agentAccount, ensureAccounts } from '../ledger/index.ts';
import { createMerchant } from '../modules/merchant/service.ts';
import {
  banks,
  day,
  demoAgent,
  demoMerchantSpecs,
  firstNames,
  hour,
  lastNames,
  type MerchantSpec,
  vendors,
} from './business.ts';
import type { Actor, Seed } from './seed.ts';

export interface DemoMerchant {
  spec: MerchantSpec;
  row: typeof merchants.$inferSelect;
  ownerId: number;
  /** Its callbacks reach its receiver until then. */
  healthyUntil: number;
  /** Whom its payouts pay. */
  beneficiaries: { accountName: string; accountNumber: string; ifsc: string }[];
  payinSeq: number;
  payoutSeq: number;
}

/** The merchant's owner, as an operation-log row names them. */
export const ownerOf = (m: DemoMerchant): Actor => ({
  id: m.ownerId,
  username: m.spec.owner.username,
  kind: 'merchant',
  merchantId: m.row.id,
});

/** The agent (A10001) and the three merchants, one hour apart. */
export async function openMerchants(seed: Seed): Promise<DemoMerchant[]> {
  const { tx, rnd, start, clock, urls, sim } = seed;
  const [agent] = await tx
    .insert(agents)
    .values({
      code: demoAgent.code,
      name: demoAgent.name,
      commissionPpm: demoAgent.commissionPpm,
      createdAt: new Date(start - 2 * day),
      updatedAt: new Date(start - 2 * day),
    })
    .returning();
  await ensureAccounts(tx, [agentAccount(agent!.id, 'INR')]);
  seed.opLog(start - 2 * day, seed.admin, endpoints.agent.create.id, `agent:${agent!.id}`, {
    changes: { agentCode: { before: null, after: demoAgent.code } },
  });

  const made: DemoMerchant[] = [];
  for (const [i, spec] of demoMerchantSpecs.entries()) {
    const createdAt = start - 2 * day + (i + 1) * hour;
    clock.set(new Date(createdAt));
    const m = await createMerchant(seed.deps, tx, {
      ...spec.terms,
      code: spec.code,
      name: spec.name,
      owner: spec.owner,
      agentId: spec.withAgent ? agent!.id : null,
      callbackUrl: urls.ok,
      // A merchant routes only where it is told: the demo's through the simulator.
      channels: [{ channelId: sim.id, weight: sim.weight }],
    });
    // The service stamps database time; the demo business started before the 30 days it shows.
    await tx
      .update(merchants)
      .set({ createdAt: new Date(createdAt), updatedAt: new Date(createdAt) })
      .where(eq(merchants.id, m.merchant.id));
    await tx
      .update(users)
      .set({ createdAt: new Date(createdAt), updatedAt: new Date(createdAt) })
      .where(eq(users.merchantId, m.merchant.id));
    seed.opLog(createdAt, seed.admin, endpoints.merchant.create.id, `merchant:${m.merchant.id}`, {
      changes: { code: { before: null, after: spec.code }, name: { before: null, after: spec.name } },
    });
    const beneficiaries = Array.from({ length: 24 }, (_, k) => ({
      accountName: k < 8 ? rnd.pick(vendors) : `${rnd.pick(firstNames)} ${rnd.pick(lastNames)}`,
      accountNumber: rnd.digits(9 + Math.floor(rnd.random() * 8)),
      ifsc: `${rnd.pick(banks)}0${rnd.digits(6)}`,
    }));
    made.push({
      spec,
      row: { ...m.merchant, createdAt: new Date(createdAt), updatedAt: new Date(createdAt) },
      ownerId: m.ownerId,
      healthyUntil: spec.callbacksDownDays ? seed.now - spec.callbacksDownDays * day + 2 * hour : Infinity,
      beneficiaries,
      payinSeq: 0,
      payoutSeq: 0,
    });
  }
  return made;
}

/** The merchant's own number for its next pay-in, in the style of its shop system. */
export function merchantOrderNoOf(seed: Seed, m: DemoMerchant, t: number): string {
  m.payinSeq++;
  if (m.spec.code === 'M10001') return `ORD${seed.istDay(t)}${String(m.payinSeq).padStart(5, '0')}`;
  if (m.spec.code === 'M10002') return `BE${String(4_200_000 + m.payinSeq)}`;
  return `mm_${t.toString(36)}${m.payinSeq.toString(36)}`;
}

/** The merchant's own number for its next payout. */
export function payoutOrderNoOf(seed: Seed, m: DemoMerchant, t: number): string {
  m.payoutSeq++;
  if (m.spec.code === 'M10001') return `WD${seed.istDay(t)}${String(m.payoutSeq).padStart(4, '0')}`;
  if (m.spec.code === 'M10002') return `BEPO${String(90_000 + m.payoutSeq)}`;
  return `mmpay_${m.payoutSeq}`;
}

/** Where the merchant's callbacks went at `t`. */
export const notifyUrlAt = (seed: Seed, m: DemoMerchant, t: number): string =>
  t < m.healthyUntil ? seed.urls.ok : seed.urls.down;

/** Masala Mart moved its callback receiver to a server that fails. */
export function scheduleReceiversDown(seed: Seed, ms: readonly DemoMerchant[]): void {
  const { tx, clock, urls } = seed;
  for (const m of ms.filter((x) => x.healthyUntil !== Infinity)) {
    seed.at(m.healthyUntil, async () => {
      await tx
        .update(merchants)
        .set({ callbackUrl: urls.down, updatedAt: clock.now() })
        .where(eq(merchants.id, m.row.id));
      m.row = { ...m.row, callbackUrl: urls.down, updatedAt: clock.now() };
      seed.opLog(clock.now().getTime(), ownerOf(m), endpoints.merchant.update.id, `merchant:${m.row.id}`, {
        changes: { callbackUrl: { before: urls.ok, after: urls.down } },
      });
    });
  }
}
