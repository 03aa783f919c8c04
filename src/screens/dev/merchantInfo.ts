import { useQuery } from '@tanstack/react-query';
import { endpoints, type Output } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';

/** The merchant's settings, as `merchant.info` answers them. */
export type MerchantInfo = Output<typeof endpoints.merchant.info>;

/** Which merchant a call is about: none named for a merchant user's own, the chosen one's id for a platform user. */
export const merchantTarget = (merchantId: number | undefined) =>
  merchantId === undefined ? {} : { id: merchantId };

/** The merchant's settings: a merchant user's own (no id sent), or the one a platform user chose. */
export function useMerchantInfo(merchantId: number | undefined, enabled = true) {
  return useQuery({
    queryKey: ['merchant-info', merchantId ?? null],
    queryFn: ({ signal }) => api(endpoints.merchant.info, merchantTarget(merchantId), { signal }),
    enabled,
  });
}
