import type { ReactNode } from 'react';

/**
 * A card of a page under its own heading: the section is named by that heading (`aria-labelledby`), so
 * assistive technology and the end-to-end specs find it by its title. `id` is the heading's, unique on the page.
 */
export function Card({ id, title, children }: { id: string; title: ReactNode; children: ReactNode }) {
  return (
    <section className="card" aria-labelledby={id}>
      <h2 className="card-title" id={id}>
        {title}
      </h2>
      {children}
    </section>
  );
}
