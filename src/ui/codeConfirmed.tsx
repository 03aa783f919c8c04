import { useState } from 'react';
import { Link } from 'wouter';
import type { Endpoint, Input, Output } from '../../contract/endpoint.ts';
import { errno } from '../../contract/index.ts';
import { api, isApiError } from '../lib/api.ts';
import { setMoneySession, withMoneySession } from '../lib/moneySession.ts';
import { toast } from '../lib/notify.ts';
import { $user } from '../lib/session.ts';
import { useT } from '../lib/useT.ts';

/**
 * Refusals of the Google code that confirms a money action or a key or whitelist change: answered quietly
 * and shown at the code field, where the user can type the code again (or go and bind a key).
 */
const codeRefusals: readonly number[] = [
  errno.badCode,
  errno.accountLocked,
  errno.googleNotBound,
  errno.moneySessionClosed,
];

/**
 * Calls an endpoint confirmed by the acting user's Google code. A refused code lands at the form's
 * `code` field (an unbound key raises `unbound`, for `UnboundNotice`: at once when the signed-in user
 * has none, so the dialog says where to bind one before it asks for a code) and the call answers
 * undefined; a 422 is left to the form's own field errors; a refusal among `shown` (the rules of the
 * action: another person must do it, it waits for an approval…) becomes `refusal`, said inside the
 * dialog, which stays open; anything else propagates to `api`'s alerts. An action above the
 * maker–checker threshold answers that it was sent for a second person's approval: with
 * `onSentForApproval` that is no failure but news, told in a toast, and the call answers undefined.
 */
export function useCodeConfirmed(
  form: { setErrors(errors: Record<string, string>): void },
  shown: readonly number[] = [],
  onSentForApproval?: () => void,
) {
  const t = useT();
  const [unbound, setUnbound] = useState(() => $user.get()?.googleBound === false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const call = async <E extends Endpoint>(endpoint: E, input: Input<E>): Promise<Output<E> | undefined> => {
    setRefusal(null);
    input = withMoneySession(endpoint, input);
    try {
      const requested = onSentForApproval ? [errno.approvalRequested] : [];
      return await api(endpoint, input, { quiet: [errno.invalid, ...codeRefusals, ...shown, ...requested] });
    } catch (error) {
      if (onSentForApproval && isApiError(error, errno.approvalRequested)) {
        toast('info', error.message);
        onSentForApproval();
        return undefined;
      }
      if (isApiError(error) && shown.includes(error.errno)) {
        setRefusal(`${error.errno}: ${error.message}`);
        return undefined;
      }
      if (!isApiError(error) || !codeRefusals.includes(error.errno)) throw error;
      setUnbound(error.errno === errno.googleNotBound);
      // The server ended the money session (its time, or another tab): the field asks for a code again.
      if (error.errno === errno.moneySessionClosed) setMoneySession(null);
      form.setErrors({ code: t(`errno.${error.errno}`) });
      return undefined;
    }
  };
  return { unbound, refusal, call };
}

/** Said when the user has no Google key yet: the action cannot be confirmed until one is bound. */
export function UnboundNotice({ close }: { close: () => void }) {
  const t = useT();
  return (
    <p className="notice" role="alert">
      {t(`errno.${errno.googleNotBound}`)}{' '}
      <Link href="/code" className="link" onClick={close}>
        {t('screens.wallet.bindGoogle')}
      </Link>
    </p>
  );
}
