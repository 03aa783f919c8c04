import type { Contexts } from '../../../commands/index.ts';
import type { endpoints, Output } from '../../../contract/index.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { slip, slipLine } from '../../../contract/machines.ts';
import { t } from '../../lib/i18n.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';

export type Slip = Contexts['slip'];
export type SlipInfo = Output<typeof endpoints.withdrawalSlip.info>;
export type SlipLine = SlipInfo['lines'][number];

const tones: Record<Slip['status'], Tone> = { to_be_withdrawn: 'warn', withdrawn: 'ok', defunct: 'muted' };

export function SlipStatus({ status }: { status: Slip['status'] }) {
  return <Badge tone={tones[status]}>{stateLabel(t, slip, status)}</Badge>;
}

export function LineStatus({ status }: { status: SlipLine['status'] }) {
  return <Badge tone={tones[status]}>{stateLabel(t, slipLine, status)}</Badge>;
}

/** A slip's file layout by name: `screens.slip.formats.<format>`. */
export const formatName = (format: Slip['format']) => t(`screens.slip.formats.${format}`);

/** What a line sends, for people: "Settlement ST…" or "Payout PO…". */
export const objectName = (l: { objectType: SlipLine['objectType']; objectNo: string }) =>
  `${t(`screens.slip.objects.${l.objectType}`)} ${l.objectNo}`;
