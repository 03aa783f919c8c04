import { useStore } from '@nanostores/react';
import { lazy, Suspense } from 'react';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { homeRoute, screens } from '../commands/index.ts';
import { $sessionState } from './lib/session.ts';
import { lazyScreen } from './shell/lazy.ts';
import { Notifications } from './ui/Notifications.tsx';
import { Spinner } from './ui/Spinner.tsx';

const Shell = lazy(() => import('./shell/Shell.tsx'));

const publicScreens = screens.filter((s) => s.access === 'public');

/**
 * Signed-in screens live inside the shell, and so does an unknown address (the shell says so and keeps
 * it); signed out, both ask for the sign-in first and come back to the address after it.
 */
function Private() {
  const [location] = useLocation();
  const state = useStore($sessionState);
  if (state === 'signedOut') {
    const back = location + window.location.search;
    return <Redirect to={`/login?redirect=${encodeURIComponent(back)}`} replace />;
  }
  if (state === 'unknown') return <Spinner />;
  return <Shell />;
}

/** Routes come from the command registry: public screens here, the rest in the shell. */
export function App() {
  return (
    <>
      <Suspense fallback={<Spinner />}>
        <Switch>
          {publicScreens.map((s) => (
            <Route key={s.id} path={s.route} component={lazyScreen(s.screen)} />
          ))}
          <Route path="/">
            <Redirect to={homeRoute} replace />
          </Route>
          <Route>
            <Private />
          </Route>
        </Switch>
      </Suspense>
      <Notifications />
    </>
  );
}
