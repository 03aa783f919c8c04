import { useStore } from '@nanostores/react';
import { useEffect } from 'react';
import { useSearchParams } from 'wouter';
import { navigate } from 'wouter/use-browser-location';
import { $sessionState } from '../../lib/session.ts';
import { Spinner } from '../../ui/Spinner.tsx';

/** After an outside sign-in step: on to `redirect` when signed in, otherwise to the login page. */
export default function AuthRedirect() {
  const state = useStore($sessionState);
  const [params] = useSearchParams();
  useEffect(() => {
    if (state === 'unknown') return;
    const target = params.get('redirect');
    const safe = target?.startsWith('/') && !target.startsWith('//') ? target : '/dashboard';
    navigate(state === 'signedIn' ? safe : `/login?redirect=${encodeURIComponent(safe)}`, { replace: true });
  }, [state, params]);
  return <Spinner />;
}
