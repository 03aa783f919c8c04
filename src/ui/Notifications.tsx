import { useStore } from '@nanostores/react';
import { lazy, Suspense } from 'react';
import { $alerts, $confirmation, $toasts, dismissToast } from '../lib/notify.ts';
import { useT } from '../lib/useT.ts';
import { keyCaps } from '../shell/keys.ts';
import { Icon } from './Icon.tsx';

// Alerts and confirmations are rare: their dialog code loads with the first one, not with every page.
const AlertDialogs = lazy(() => import('./AlertDialogs.tsx'));

/** Toasts, alerts and confirmations of the whole console, rendered once at the root. */
export function Notifications() {
  const t = useT();
  const toasts = useStore($toasts);
  const alerts = useStore($alerts);
  const confirmation = useStore($confirmation);
  const current = alerts[0];
  return (
    <>
      <section className="toasts no-print" aria-live="polite" aria-label={t('app.notifications')}>
        {toasts.map((x) => (
          <div key={x.id} role={x.tone === 'error' ? 'alert' : 'status'} className={`toast toast-${x.tone}`}>
            <span>{x.text}</span>
            {x.action && (
              <button
                type="button"
                className="toast-action"
                onClick={x.action.run}
                aria-keyshortcuts={x.action.shortcut?.replace('mod', 'Control')}
              >
                {x.action.label}
                {x.action.shortcut && <kbd>{keyCaps(x.action.shortcut).join('-')}</kbd>}
              </button>
            )}
            <button
              type="button"
              className="icon-button"
              aria-label={t('app.close')}
              onClick={() => dismissToast(x.id)}
            >
              <Icon name="close" size={14} />
            </button>
          </div>
        ))}
      </section>
      {(current || confirmation) && (
        <Suspense fallback={null}>
          <AlertDialogs />
        </Suspense>
      )}
    </>
  );
}
