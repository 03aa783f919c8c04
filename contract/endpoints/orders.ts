/**
 * The order endpoints: pay-ins (`payins.ts`), payouts (`payouts.ts`), the merchant's wallet and recharges
 * (`wallet.ts`) and the simulator channel's controls (`simulator.ts`), on the parts they share (`orderParts.ts`).
 */

export {
  callbackAttempt,
  callbackEvent,
  exportFormat,
  payinStatus,
  payoutStatus,
  postingRow,
  pushStatus,
} from './orderParts.ts';
export { merchantOrder, payinRow, payinRowFields } from './payins.ts';
export { accountName, accountNumber, ifsc, merchantPayout, payoutRow, payoutRowFields } from './payouts.ts';
export { simulatorPay, simulatorPayout } from './simulator.ts';
export { merchantRechargeLog, merchantWallet } from './wallet.ts';
