/**
 * The merchant a platform user is looking at: `merchantId` in the URL (MerchantPicker keeps it there).
 * React-free: the shell reads it for a command when it runs (`RunContext.merchantInView`).
 */
export function merchantIdInView(search: string = window.location.search): number | undefined {
  const raw = Number(new URLSearchParams(search).get('merchantId'));
  return Number.isInteger(raw) && raw > 0 ? raw : undefined;
}
