import type { Contexts } from '../../../commands/index.ts';
import { thousands } from '../../lib/format.ts';
import { hasKey, t } from '../../lib/i18n.ts';

export type Request = Contexts['approval'];

/** The object as people name it (its number), or its kind and id when it has none. */
export const objectName = (r: Request) => r.label ?? `${r.refType} ${r.refId}`;

/** What the action will do beyond the amount, one fact after another ("UTR: …, Paid amount: …"). */
export function summaryText(r: Request): string {
  return r.summary
    .map(({ key, value }) => {
      const label = `screens.approval.payload.${key}`;
      // Amounts as the lists show them, with thousands separators.
      return `${hasKey(label) ? t(label) : key}: ${/amount$/i.test(key) ? thousands(value) : value}`;
    })
    .join(' · ');
}
