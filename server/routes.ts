import type { GatewayRoute } from './gateway/app.ts';
import type { Route } from './http/handle.ts';
import { accountFreezeRoutes } from './modules/accountFreeze/routes.ts';
import { adjustmentRoutes } from './modules/adjustment/routes.ts';
import { merchantUserRoutes } from './modules/admin/merchantUsers.ts';
import { adminRoutes } from './modules/admin/routes.ts';
import { commissionRoutes } from './modules/agent/commission.ts';
import { agentRoutes } from './modules/agent/routes.ts';
import { approvalRoutes } from './modules/approval/routes.ts';
import { moneySessionRoutes } from './modules/auth/moneySession.ts';
import { authRoutes } from './modules/auth/routes.ts';
import { channelRoutes } from './modules/channel/routes.ts';
import { dashboardRoutes } from './modules/dashboard/routes.ts';
import { disputeRoutes } from './modules/dispute/routes.ts';
import { exportRoutes } from './modules/export/routes.ts';
import { ledgerRoutes } from './modules/ledger/routes.ts';
import { memoRoutes } from './modules/memo/routes.ts';
import { merchantRoutes } from './modules/merchant/routes.ts';
import { parameterRoutes } from './modules/parameter/routes.ts';
import { payinGatewayRoutes } from './modules/payin/gateway.ts';
import { payinRoutes } from './modules/payin/routes.ts';
import { payoutGatewayRoutes } from './modules/payout/gateway.ts';
import { payoutRoutes } from './modules/payout/routes.ts';
import { receivingRoutes } from './modules/receiving/routes.ts';
import { rechargeRoutes } from './modules/recharge/routes.ts';
import { refundGatewayRoutes, refundRoutes } from './modules/refund/routes.ts';
import { riskRoutes } from './modules/risk/routes.ts';
import { roleRoutes } from './modules/role/routes.ts';
import { settlementRoutes } from './modules/settlement/routes.ts';
import { tnRoutes } from './modules/settlement/tnRoutes.ts';
import { slipRoutes } from './modules/slip/routes.ts';
import { statRoutes } from './modules/stat/routes.ts';
import { statementRoutes } from './modules/statement/routes.ts';
import { statementFeedRoutes } from './modules/statementFeed/routes.ts';
import { systemRoutes } from './modules/system/routes.ts';
import { telegramRoutes } from './modules/telegram/routes.ts';
import { walletRoutes } from './modules/wallet/routes.ts';

/** Every handler; `createApp` refuses to start when an endpoint of the registry has none. */
export const routes: readonly Route[] = [
  ...systemRoutes,
  ...authRoutes,
  ...moneySessionRoutes,
  ...adminRoutes,
  ...roleRoutes,
  ...merchantRoutes,
  ...merchantUserRoutes,
  ...memoRoutes,
  ...agentRoutes,
  ...commissionRoutes,
  ...adjustmentRoutes,
  ...riskRoutes,
  ...channelRoutes,
  ...ledgerRoutes,
  ...walletRoutes,
  ...rechargeRoutes,
  ...payoutRoutes,
  ...payinRoutes,
  ...refundRoutes,
  ...exportRoutes,
  ...dashboardRoutes,
  ...approvalRoutes,
  ...settlementRoutes,
  ...statRoutes,
  ...tnRoutes,
  ...slipRoutes,
  ...receivingRoutes,
  ...accountFreezeRoutes,
  ...disputeRoutes,
  ...statementRoutes,
  ...statementFeedRoutes,
  ...parameterRoutes,
  ...telegramRoutes,
];

/** Every gateway route; `mountGateway` refuses to start when a registered gateway endpoint has none. */
export const gatewayRoutes: readonly GatewayRoute[] = [
  ...payinGatewayRoutes,
  ...payoutGatewayRoutes,
  ...refundGatewayRoutes,
];
