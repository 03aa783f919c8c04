import { useState } from 'react';
import { Link } from 'wouter';
import type { Endpoint, Input, Output } from '../../contract/endpoint.ts';
import { errno } from '../../contract/index.ts';
import { api, isApiError } from '../lib/api.ts';
import { useT } from '../lib/useT.ts';

/**
 * Refusals of the Google code that confirms a money action or a key or whitelist change: answered quietly
 * and shown at the code field, where the user can type the code again (or go and bind a key).
 */
const codeRefusals: readonly number[] = [errno.badCode, errno.accountLocked, errno.googleNotBound];

/**
 * Calls an endpoint confirmed by the acting user's Google code. A refused code lands at the form's
 * `code` field (an unbound key also raises `unbound`, for `UnboundNotice`) and the call answers
 * undefined; a 422 is left to the form's own field errors; anything else propagates to `api`'s alerts.
 */
export function useCodeConfirmed(form: { setErrors(errors: Record<string, string>): void }) {
  const t = useT();
  const [unbound, setUnbound] = useState(false);
  const call = async <E extends Endpoint>(endpoint: E, input: Input<E>): Promise<Output<E> | undefined> => {
    try {
      return await api(endpoint, input, { quiet: [errno.invalid, ...codeRefusals] });
    } catch (error) {
      if (!isApiError(error) || !codeRefusals.includes(error.errno)) throw error;
      setUnbound(error.errno === errno.googleNotBound);
      form.setErrors({ code: t(`errno.${error.errno}`) });
      return undefined;
    }
  };
  return { unbound, call };
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
