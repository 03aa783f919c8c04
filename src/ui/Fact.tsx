import type { ReactNode } from 'react';

/**
 * One fact of a description list (`facts` and its kin): its label, then its value, styled by `className`
 * (`money` for a sum, `mono` for a code); a `wide` one spans the list's columns.
 */
export function Fact({
  label,
  className,
  wide = false,
  children,
}: {
  label: string;
  className?: string;
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={wide ? 'wide' : undefined}>
      <dt>{label}</dt>
      <dd className={className}>{children}</dd>
    </div>
  );
}
