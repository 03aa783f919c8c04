import { useMerchantName } from '../lib/merchantNames.ts';

/**
 * A merchant in a list's cell: `M10003 · Masala Mart`, the code as people copy it, the name after it
 * (cut by the cell, whole in the title). `name` when the row brings it; otherwise it is looked up by
 * code (src/lib/merchantNames.ts) and shown once it arrives.
 */
export function MerchantCell({ code, name }: { code: string | null | undefined; name?: string | null }) {
  const looked = useMerchantName(name ? null : code);
  if (!code) return null;
  const shown = name || looked;
  return (
    <span title={shown ? `${code} · ${shown}` : code}>
      <span className="mono">{code}</span>
      {shown ? ` · ${shown}` : null}
    </span>
  );
}
