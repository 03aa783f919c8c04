import type { ReactNode } from 'react';

/** The frame of a screen: its title row and content. */
export function Page({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="page">
      <div className="page-head">
        <h1 className="page-title">{title}</h1>
        {actions && <div className="page-actions no-print">{actions}</div>}
      </div>
      {children}
    </div>
  );
}
