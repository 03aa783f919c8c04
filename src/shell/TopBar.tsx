import { useStore } from '@nanostores/react';
import { lazy, Suspense, useMemo, useSyncExternalStore } from 'react';
import { Link, useLocation } from 'wouter';
import { moneySessionAction } from '../../commands/account.ts';
import { breadcrumbFor } from '../../commands/index.ts';
import { formatClock } from '../lib/format.ts';
import { useMoneySessionEnd } from '../lib/moneySession.ts';
import { $mobile, $sidebarOpened } from '../lib/settings.ts';
import { $businessTimeZone, sameClock, viewerZone, zoneShort } from '../lib/timeZone.ts';
import { useT } from '../lib/useT.ts';
import { Icon } from '../ui/Icon.tsx';
import { keyCaps } from './keys.ts';
import { $menusReady, loadMenus, MenuTriggers, ToolButton } from './menuTriggers.tsx';
import { runCommand, runContext } from './runtime.ts';

const TopMenus = lazy(() => loadMenus().then((m) => ({ default: m.TopMenus })));

function Breadcrumb() {
  const t = useT();
  const [location] = useLocation();
  const crumbs = breadcrumbFor(location);
  return (
    <nav className="breadcrumb" aria-label={t('app.breadcrumb')}>
      <ol>
        {crumbs.map((c, i) => {
          const last = i === crumbs.length - 1;
          return (
            <li key={c.titleKey}>
              {c.path && !last ? (
                <Link href={c.path}>{t(c.titleKey)}</Link>
              ) : (
                <span aria-current={last ? 'page' : undefined}>{t(c.titleKey)}</span>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

/** Whether the console is in full screen (by its button, its key or the browser's own F11 and Esc). */
function useFullscreen(): boolean {
  return useSyncExternalStore(
    (changed) => {
      document.addEventListener('fullscreenchange', changed);
      return () => document.removeEventListener('fullscreenchange', changed);
    },
    () => document.fullscreenElement !== null,
  );
}

/**
 * While the money session is open: until when, in the top bar, so nobody forgets that queue decisions
 * take no code now; a click opens its dialog (end it, renew it). It goes when the session ends.
 */
function MoneySessionChip() {
  const t = useT();
  const until = useMoneySessionEnd();
  if (until === null) return null;
  return (
    <ToolButton
      className="button money-session-chip"
      title={t('moneySession.chipTitle', { time: formatClock(until) })}
      onClick={() => void runCommand(moneySessionAction)}
    >
      <Icon name="key" size={14} />
      <span className="money-session-label">{t('moneySession.chip', { time: formatClock(until) })}</span>
    </ToolButton>
  );
}

/**
 * The clock the console's times are in, named: the person's zone ("IST"), and where business days are
 * counted in another, that one too ("CET · business IST"), so that a report's "today" is not misread.
 */
function ZoneLabel() {
  const t = useT();
  const business = useStore($businessTimeZone);
  const mine = viewerZone();
  // Formatters are built for each question: asked once per zone, not on every route's render.
  const { same, short, businessShort } = useMemo(
    () => ({ same: sameClock(mine, business), short: zoneShort(mine), businessShort: zoneShort(business) }),
    [mine, business],
  );
  const title = t(same ? 'app.zone.same' : 'app.zone.differs', { mine, business });
  return (
    <span className={`zone-label${same ? '' : ' zone-label-differs'}`} title={title}>
      {same ? short : t('app.zone.both', { mine: short, business: businessShort })}
    </span>
  );
}

/** Breadcrumb, palette, full screen, size, language and the user menu. */
export function TopBar() {
  const t = useT();
  const fullscreen = useFullscreen();
  const opened = useStore($sidebarOpened);
  const mobile = useStore($mobile);
  const menusReady = useStore($menusReady);
  const ctx = () => runContext();
  return (
    <header className="topbar no-print">
      <button
        type="button"
        className="icon-button"
        aria-label={t(mobile ? 'app.openMenu' : opened ? 'app.collapseMenu' : 'app.expandMenu')}
        aria-expanded={mobile ? undefined : opened}
        onClick={() => ctx().shell.toggleSidebar()}
      >
        <Icon name="menu" size={18} />
      </button>
      <Breadcrumb />
      <div className="topbar-tools">
        <button type="button" className="search-button" onClick={() => ctx().shell.openPalette()}>
          <Icon name="search" />
          <span className="search-label">{t('app.searchPlaceholder')}</span>
          <kbd>{keyCaps('mod+k').join(' ')}</kbd>
        </button>
        <MoneySessionChip />
        <ZoneLabel />
        <ToolButton
          title={t(fullscreen ? 'app.exitFullscreen' : 'commands.app.fullscreen.title')}
          onClick={() => ctx().shell.toggleFullscreen()}
        >
          <Icon name={fullscreen ? 'minimize' : 'maximize'} size={18} />
        </ToolButton>
        {menusReady ? (
          <Suspense fallback={<MenuTriggers />}>
            <TopMenus />
          </Suspense>
        ) : (
          <MenuTriggers />
        )}
      </div>
    </header>
  );
}
