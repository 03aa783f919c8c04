import type { Contexts } from '../../../commands/index.ts';
import type { endpoints, Output } from '../../../contract/index.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { dispute } from '../../../contract/machines.ts';
import { formatTime } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';

export type Dispute = Contexts['dispute'];
export type DisputeInfo = Output<typeof endpoints.dispute.info>;

const tones: Record<Dispute['status'], Tone> = { open: 'warn', won: 'ok', lost: 'bad', withdrawn: 'muted' };

export function DisputeStatus({ status }: { status: Dispute['status'] }) {
  return <Badge tone={tones[status]}>{stateLabel(t, dispute, status)}</Badge>;
}

export const kindLabel = (kind: Dispute['kind']) => t(`screens.dispute.kinds.${kind}`);

/** The deadline, and while the case is open past it a red badge: such cases are listed first. */
export function Deadline({ row }: { row: Pick<Dispute, 'deadline' | 'overdue'> }) {
  return (
    <span className="dispute-deadline">
      {formatTime(row.deadline, false)}
      {row.overdue && <Badge tone="bad">{t('screens.dispute.overdue')}</Badge>}
    </span>
  );
}
