import { feeOf, formatMinor, percentToPpm, toMinor } from '../../../contract/money.ts';

/** The merchant's terms as `merchant.info` answers them (rates in percent, amounts as decimal strings). */
export interface FeeTerms {
  collectionRate: string;
  platformFee: string;
  payoutRate: string;
  payoutFee: string;
}

/**
 * What an amount costs under the merchant's terms, computed as the server does: the pay-in fee is
 * rate × amount rounded half up plus the platform fee, never more than the amount; the payout fee is
 * rate × amount plus the per-payout fee, held from the payout balance together with the amount.
 */
export function feesFor(amountMinor: number, terms: FeeTerms) {
  const payinFee = Math.min(
    feeOf(amountMinor, percentToPpm(terms.collectionRate), toMinor(terms.platformFee)),
    amountMinor,
  );
  const payoutFee = feeOf(amountMinor, percentToPpm(terms.payoutRate), toMinor(terms.payoutFee));
  return {
    payinFee: formatMinor(payinFee),
    payinCredited: formatMinor(amountMinor - payinFee),
    payoutFee: formatMinor(payoutFee),
    payoutDebited: formatMinor(amountMinor + payoutFee),
  };
}
