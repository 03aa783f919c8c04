import { useStore } from '@nanostores/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useLayoutEffect, useMemo } from 'react';
import { Redirect, Route, Switch, useLocation, useSearch } from 'wouter';
import { navigate } from 'wouter/use-browser-location';
import { type ScreenCommand, screenForPath, screens, titleKey } from '../../commands/index.ts';
import { allows } from '../../contract/index.ts';
import { logout } from '../lib/auth.ts';
import { loadLanguage, t } from '../lib/i18n.ts';
import { toast } from '../lib/notify.ts';
import { queryClient } from '../lib/query.ts';
import { $grants, $user } from '../lib/session.ts';
import {
  $drawerOpen,
  $mobile,
  $sidebarOpened,
  mobileBreakpoint,
  setLanguageSetting,
  setSidebarOpened,
  setSizeSetting,
} from '../lib/settings.ts';
import { $tabs, resetTabs, visit } from '../lib/tabs.ts';
import { useT } from '../lib/useT.ts';
import { ErrorPage } from '../screens/public/ErrorPage.tsx';
import { Spinner } from '../ui/Spinner.tsx';
import { DialogHost } from './DialogHost.tsx';
import { handleKey } from './keyboard.ts';
import { preloadScreens, screenComponent } from './lazy.ts';
import { loadMenus } from './menuTriggers.tsx';
import { $paletteDraft, $paletteOpen, setShellHasKeys } from './paletteState.ts';
import { $cheatSheetOpen, provideShell } from './runtime.ts';
import { Sidebar } from './Sidebar.tsx';
import { TabStrip } from './TabStrip.tsx';
import { TopBar } from './TopBar.tsx';
import { $viewKey } from './view.ts';

const loadPalette = () => import('./palette/Palette.tsx');
const Palette = lazy(loadPalette);
// Shown only on demand (or below 1021 px): their dialog code stays out of the first screen's load.
const CheatSheet = lazy(() => import('./CheatSheet.tsx'));
const MobileDrawer = lazy(() => import('./MobileDrawer.tsx'));

/** Stands in for the palette while its chunk loads, so that nothing typed after Ctrl-K is lost. */
function PaletteLoading() {
  const tr = useT();
  const draft = useStore($paletteDraft);
  return (
    <div className="overlay palette-overlay">
      <div className="palette">
        <div className="palette-input">
          <input
            // biome-ignore lint/a11y/noAutofocus: it stands in for the palette's own focused input.
            autoFocus
            value={draft}
            aria-label={tr('app.palette.title')}
            placeholder={tr('app.palette.placeholder')}
            onChange={(e) => $paletteDraft.set(e.target.value)}
            onKeyDown={(e) => e.key === 'Escape' && $paletteOpen.set(false)}
          />
        </div>
      </div>
    </div>
  );
}

const userScreens = screens.filter((s) => s.access !== 'public');

function toggleFullscreen(): void {
  if (!document.fullscreenEnabled) {
    toast('warning', t('app.fullscreenUnsupported'));
    return;
  }
  if (document.fullscreenElement) void document.exitFullscreen();
  else void document.documentElement.requestFullscreen();
}

function ScreenView({ screen }: { screen: ScreenCommand }) {
  const Component = screenComponent(screen.screen);
  const viewKey = useStore($viewKey);
  return <Component key={viewKey} />;
}

/** The signed-in layout: sidebar, top bar, tab strip and the current screen. */
export default function Shell() {
  const t = useT();
  const [location] = useLocation();
  const search = useSearch();
  const grants = useStore($grants);
  const user = useStore($user);
  const mobile = useStore($mobile);
  const opened = useStore($sidebarOpened);
  const paletteOpen = useStore($paletteOpen);
  const cheatSheetOpen = useStore($cheatSheetOpen);
  const current = screenForPath(location);

  // A layout effect, not a passive one: the keyboard must answer from the first painted frame (a passive
  // effect runs after paint, and on a busy machine a key pressed in between was lost).
  useLayoutEffect(() => {
    provideShell({
      openPalette: () => $paletteOpen.set(!$paletteOpen.get()),
      openCheatSheet: () => $cheatSheetOpen.set(true),
      toggleSidebar: () =>
        $mobile.get() ? $drawerOpen.set(!$drawerOpen.get()) : setSidebarOpened(!$sidebarOpened.get()),
      toggleFullscreen,
      setLanguage: (language) => {
        setLanguageSetting(language);
        void loadLanguage(language);
      },
      setSize: (size) => {
        setSizeSetting(size);
        document.documentElement.dataset.size = size;
        toast('success', t('app.sizeChanged'));
        $viewKey.set($viewKey.get() + 1);
      },
      logout: () => {
        void logout().then(() => {
          resetTabs();
          navigate('/login');
        });
      },
    });
    window.addEventListener('keydown', handleKey);
    setShellHasKeys(true);
    const onResize = () => {
      const isMobile = window.innerWidth < mobileBreakpoint;
      if (isMobile !== $mobile.get()) $mobile.set(isMobile);
      $drawerOpen.set(false);
    };
    window.addEventListener('resize', onResize);
    const idle = window.setTimeout(() => {
      void loadMenus();
      void loadPalette().then(() =>
        preloadScreens(userScreens.filter((s) => allows($grants.get(), s.needs)).map((s) => s.screen)),
      );
    }, 800);
    return () => {
      window.removeEventListener('keydown', handleKey);
      setShellHasKeys(false);
      window.removeEventListener('resize', onResize);
      window.clearTimeout(idle);
    };
  }, [t]);

  // The drawer closes on every route change; the visited view joins the tab strip.
  useEffect(() => {
    $drawerOpen.set(false);
    if (current && current.access !== 'public' && allows($grants.get(), current.needs)) {
      const query = search ? `?${search}` : '';
      $tabs.set(
        visit($tabs.get(), {
          path: location,
          fullPath: location + query,
          query,
          titleKey: titleKey(current.id),
        }),
      );
    }
  }, [location, search, current]);

  useEffect(() => {
    const title = !current
      ? 'errorPage.404.title'
      : allows(grants, current.needs)
        ? titleKey(current.id)
        : 'errorPage.401.title';
    document.title = `${t(title)} · ${t('app.name')}`;
  }, [current, grants, t]);

  const routes = useMemo(
    () =>
      userScreens.map((s) => (
        <Route key={s.id} path={s.route}>
          {allows(grants, s.needs) ? <ScreenView screen={s} /> : <ErrorPage code="401" inShell />}
        </Route>
      )),
    [grants],
  );

  if (user?.mustBindGoogle && !user.googleBound && location !== '/code')
    return <Redirect to="/code" replace />;

  return (
    <QueryClientProvider client={queryClient}>
      <div className={`shell${opened && !mobile ? '' : ' collapsed'}${mobile ? ' mobile' : ''}`}>
        {/* The first Tab stop: past the menu's links straight to the screen. */}
        <button
          type="button"
          className="skip-link"
          onClick={() => document.getElementById('content')?.focus()}
        >
          {t('app.skipToContent')}
        </button>
        {mobile ? (
          <Suspense fallback={null}>
            <MobileDrawer />
          </Suspense>
        ) : (
          <Sidebar collapsed={!opened} />
        )}
        <div className="shell-main">
          <TopBar />
          <TabStrip />
          <main className="content" id="content" tabIndex={-1}>
            <Suspense fallback={<Spinner />}>
              <Switch>
                {routes}
                <Route>
                  <ErrorPage code="404" inShell />
                </Route>
              </Switch>
            </Suspense>
          </main>
        </div>
      </div>
      {paletteOpen && (
        <Suspense fallback={<PaletteLoading />}>
          <Palette />
        </Suspense>
      )}
      {cheatSheetOpen && (
        <Suspense fallback={null}>
          <CheatSheet />
        </Suspense>
      )}
      <DialogHost />
    </QueryClientProvider>
  );
}
