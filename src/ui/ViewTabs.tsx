import type { ReactNode } from 'react';

/** Tabs that switch a screen between views of the same thing (the chosen one lives in the URL). */
export function ViewTabs<K extends string>({
  label,
  tabs,
  current,
  choose,
  title,
  className,
  children,
}: {
  label: string;
  tabs: readonly K[];
  current: K;
  choose: (tab: K) => void;
  title: (tab: K) => string;
  className?: string;
  /** Beside the tabs (a hint for the current view). */
  children?: ReactNode;
}) {
  return (
    <div className={className ? `view-tabs ${className}` : 'view-tabs'} role="tablist" aria-label={label}>
      {tabs.map((k) => (
        <button
          key={k}
          type="button"
          role="tab"
          aria-selected={current === k}
          className={`view-tab${current === k ? ' active' : ''}`}
          onClick={() => choose(k)}
        >
          {title(k)}
        </button>
      ))}
      {children}
    </div>
  );
}
