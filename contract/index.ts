/**
 * The endpoint registry: every admin API endpoint, declared once. The server mounts handlers on it,
 * checks permissions from it and generates OpenAPI from it; the console calls the API through it.
 */
import type { Endpoint } from './endpoint.ts';
import { accountFreezeEndpoints } from './endpoints/accountFreeze.ts';
import { agentCommission, balanceAdjustment } from './endpoints/adjustment.ts';
import { admin } from './endpoints/admin.ts';
import { approvalEndpoints } from './endpoints/approval.ts';
import { auth } from './endpoints/auth.ts';
import { dashboard } from './endpoints/dashboard.ts';
import { disputeEndpoints } from './endpoints/dispute.ts';
import { memo } from './endpoints/memo.ts';
import { agent, channel, ledger, merchant } from './endpoints/merchant.ts';
import { merchantUser } from './endpoints/merchantUser.ts';
import {
  merchantOrder,
  merchantPayout,
  merchantRechargeLog,
  merchantWallet,
  simulatorPay,
  simulatorPayout,
} from './endpoints/orders.ts';
import { parameter } from './endpoints/parameter.ts';
import { accountHolder, cardBinding, holderNumber, receivingAccount } from './endpoints/receiving.ts';
import { refundEndpoints } from './endpoints/refund.ts';
import { blocklist } from './endpoints/risk.ts';
import { role } from './endpoints/role.ts';
import { settlementPayment, settlementPayout, settlementQuery } from './endpoints/settlement.ts';
import { withdrawalSlip } from './endpoints/slip.ts';
import { statOrder } from './endpoints/stat.ts';
import { statement, statementMappingEndpoints } from './endpoints/statement.ts';
import { statementFeed } from './endpoints/statementFeed.ts';
import { health, log, mailOutbox } from './endpoints/system.ts';
import { telegram } from './endpoints/telegram.ts';
import { merchantSettlementtn, settlementtnLog } from './endpoints/tn.ts';

export const endpoints = {
  health,
  auth,
  admin,
  role,
  log,
  mailOutbox,
  merchant,
  merchantUser,
  memo,
  agent,
  channel,
  ledger,
  merchantWallet,
  merchantRechargeLog,
  merchantPayout,
  merchantOrder,
  refund: refundEndpoints,
  dashboard,
  approval: approvalEndpoints,
  settlementPayment,
  settlementPayout,
  settlementQuery,
  merchantSettlementtn,
  settlementtnLog,
  withdrawalSlip,
  receivingAccount,
  statementMapping: statementMappingEndpoints,
  statement,
  statementFeed,
  accountHolder,
  cardBinding,
  holderNumber,
  accountFreeze: accountFreezeEndpoints,
  dispute: disputeEndpoints,
  statOrder,
  parameter,
  telegram,
  balanceAdjustment,
  agentCommission,
  blocklist,
  simulator: { ...simulatorPay, ...simulatorPayout },
};

function assemble(): Endpoint[] {
  const all: Endpoint[] = [];
  const seen = new Map<string, string>();
  for (const [group, area] of Object.entries(endpoints)) {
    for (const [name, ep] of Object.entries(area as Record<string, Endpoint>)) {
      ep.id = `${group}.${name}`;
      ep.group = group;
      const other = seen.get(ep.permission);
      if (other) throw new Error(`endpoint ${ep.id} repeats ${ep.permission} of ${other}`);
      seen.set(ep.permission, ep.id);
      all.push(ep);
    }
  }
  return all;
}

/** Every endpoint, with `id` and `group` filled in. */
export const allEndpoints: readonly Endpoint[] = assemble();

export * from './endpoint.ts';
export * from './errno.ts';
export * from './permissions.ts';
