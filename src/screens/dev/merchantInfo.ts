import { useQuery } from '@tanstack/react-query';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';

/** The merchant's settings: a merchant user's own (no id sent), or the one a platform user chose. */
export function useMerchantInfo(merchantId: number | undefined, enabled = true) {
  return useQuery({
    queryKey: ['merchant-info', merchantId ?? null],
    queryFn: ({ signal }) =>
      api(endpoints.merchant.info, merchantId === undefined ? {} : { id: merchantId }, { signal }),
    enabled,
  });
}
