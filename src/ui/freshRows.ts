import { useEffect, useRef, useState } from 'react';

/** How long a row that arrived or changed in a live re-read stays highlighted. */
const freshMs = 4_000;

/**
 * Keys of rows that are new or changed since the previous answer to the same question (same input):
 * the highlight of a live list. A different question (filters, page) starts afresh, highlighting nothing.
 */
export function useFreshRows<R>(
  rows: readonly R[],
  rowKey: (row: R) => string,
  question: string,
  on: boolean,
) {
  const seen = useRef<{ question: string; rows: Map<string, string> } | null>(null);
  const keyOf = useRef(rowKey);
  keyOf.current = rowKey;
  const [fresh, setFresh] = useState<ReadonlySet<string>>(emptySet);
  // Runs when the answer changes (the query keeps an unchanged answer's identity), not on every render.
  useEffect(() => {
    if (!on || rows.length === 0) return;
    const now = new Map(rows.map((r) => [keyOf.current(r), JSON.stringify(r)]));
    const before = seen.current;
    seen.current = { question, rows: now };
    const changed = new Set<string>();
    if (before && before.question === question)
      for (const [key, signature] of now) if (before.rows.get(key) !== signature) changed.add(key);
    setFresh(changed.size ? changed : emptySet);
    if (changed.size === 0) return;
    const timer = window.setTimeout(() => setFresh(emptySet), freshMs);
    return () => window.clearTimeout(timer);
  }, [rows, question, on]);
  return fresh;
}

const emptySet: ReadonlySet<string> = new Set();
