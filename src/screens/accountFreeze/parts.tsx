import type { Contexts } from '../../../commands/index.ts';
import type { endpoints, Output } from '../../../contract/index.ts';
import { stateLabel } from '../../../contract/machine.ts';
import { accountFreeze } from '../../../contract/machines.ts';
import { t } from '../../lib/i18n.ts';
import { Badge, type Tone } from '../../ui/Badge.tsx';

export type Freeze = Contexts['accountFreeze'];
export type FreezeInfo = Output<typeof endpoints.accountFreeze.info>;
export type FreezeLine = FreezeInfo['lines'][number];

const tones: Record<Freeze['status'], Tone> = { frozen: 'warn', settled: 'ok' };

export function FreezeStatus({ status }: { status: Freeze['status'] }) {
  return <Badge tone={tones[status]}>{stateLabel(t, accountFreeze, status)}</Badge>;
}
