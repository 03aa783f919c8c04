import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import type { ActionOf } from '../../../contract/machine.ts';
import type { recharge } from '../../../contract/machines.ts';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { DecisionDialog } from '../../ui/DecisionDialog.tsx';

/** A platform user's decision on a recharge: each action of its state machine. */
type Decision = ActionOf<typeof recharge>;

/**
 * Confirms a pending recharge (its amount is credited to the merchant's payout balance) or rejects it
 * (nothing is credited; the merchant reads the reason). Either moves money or refuses to: a reason and
 * the user's Google code.
 */
export default function DecisionForm({
  recharge,
  decision,
  close,
}: {
  recharge: Contexts['recharge'];
  decision: Decision;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const confirming = decision === 'confirm';
  const facts = {
    id: recharge.id,
    merchantCode: recharge.merchantCode,
    amount: thousands(recharge.amount),
    currency: recharge.currency,
    reference: recharge.reference,
  };
  return (
    <DecisionDialog
      endpoint={endpoints.merchantRechargeLog[decision]}
      title={t(`commands.merchantRechargeLog.${decision}.title`)}
      description={t(
        confirming ? 'commands.merchantRechargeLog.confirm.confirm' : 'screens.recharge.rejectText',
        facts,
      )}
      tone={confirming ? 'primary' : 'danger'}
      reason={{
        label: t('screens.recharge.reason'),
        hint: t(confirming ? 'screens.recharge.confirmReasonHint' : 'screens.recharge.rejectReasonHint'),
      }}
      input={({ reason, code }) => ({ id: recharge.id, reason, code })}
      done={(done) =>
        confirming
          ? t('screens.recharge.confirmed', { ...done, amount: thousands(done.amount) })
          : t('screens.recharge.rejected', { id: done.id })
      }
      close={close}
    />
  );
}
