/**
 * The demo's risk rules (docs/MONEY-BACK.md section 4): a payer the platform blocked after a chargeback
 * fraud, and one pay-in of theirs refused at creation by the real rule check, so the dashboard counts it.
 */
import { normalBlockValue } from '../../contract/endpoints/risk.ts';
import { blocklistEntries } from '../db/schema.ts';
import { loadMerchant } from '../modules/merchant/scope.ts';
import { checkCreation, RiskRefusal } from '../modules/risk/rules.ts';
import type { DemoMerchant } from './merchants.ts';
import type { Actor, Seed } from './seed.ts';

/** The blocked payer's phone, as the demo's pay-ins name payers. */
export const demoBlockedPhone = '+91 98765 43210';

export async function openRiskRules(seed: Seed, ms: readonly DemoMerchant[], operator: Actor) {
  const { tx, deps } = seed;
  const m = ms.find((d) => d.spec.code === 'M10002');
  if (!m || operator.id === null) throw new Error('demo: the risk rules need M10002 and the operator');
  const now = deps.clock.now();
  await tx.insert(blocklistEntries).values({
    kind: 'payer_phone',
    value: normalBlockValue('payer_phone', demoBlockedPhone),
    reason: 'Chargeback fraud reported by the issuing bank',
    createdBy: operator.id,
    createdAt: new Date(now.getTime() - 6 * 3_600_000),
  });
  try {
    await checkCreation(
      tx,
      await loadMerchant(tx, m.row.id),
      { amount: 250_000, payer: { phone: demoBlockedPhone } },
      now,
    );
    throw new Error('demo: the blocked payer was not refused');
  } catch (err) {
    if (!(err instanceof RiskRefusal)) throw err;
  }
}
