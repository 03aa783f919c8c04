import type { ReactNode } from 'react';

/**
 * A small table inside a dialog or a detail (files read, refused rows, a run's outcomes): its column
 * headings in a row, then its rows as given.
 */
export function HeadedTable({
  className,
  label,
  headings,
  children,
}: {
  className: string;
  /** The table's accessible name, when nothing near it names it. */
  label?: string;
  headings: readonly string[];
  children: ReactNode;
}) {
  return (
    <table className={className} aria-label={label}>
      <thead>
        <tr>
          {headings.map((h) => (
            <th key={h}>{h}</th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
