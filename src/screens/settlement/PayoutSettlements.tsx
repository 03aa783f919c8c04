import { SettlementList } from './SettlementList.tsx';

/** `/settlementpayout`: the payout wallet's unused balance settled back to the merchant. */
export default function PayoutSettlements() {
  return <SettlementList wallet="payout" />;
}
