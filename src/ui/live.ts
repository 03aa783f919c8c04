import { useEffect, useState } from 'react';

/** True while the browser tab is visible. */
export function usePageVisible(): boolean {
  const [visible, setVisible] = useState(() => document.visibilityState === 'visible');
  useEffect(() => {
    const onChange = () => setVisible(document.visibilityState === 'visible');
    document.addEventListener('visibilitychange', onChange);
    return () => document.removeEventListener('visibilitychange', onChange);
  }, []);
  return visible;
}

/** Default pause between live re-reads of a list's first page. */
export const liveIntervalMs = 5_000;

/**
 * The refetch interval of a live list: `ms` while `active` (the list is at its top and its period
 * reaches now) and the tab is visible, otherwise off, so a hidden tab or a deep page costs nothing.
 */
export function useLiveInterval(active: boolean, ms = liveIntervalMs): number | false {
  const visible = usePageVisible();
  return active && visible ? ms : false;
}
