import { SettlementList } from './SettlementList.tsx';

/** `/settlementpayment`: settlements out of the collection wallet. */
export default function CollectionSettlements() {
  return <SettlementList wallet="collection" />;
}
