import { type UseQueryResult, useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { Endpoint, Input, Output } from '../../contract/endpoint.ts';
import { errno } from '../../contract/index.ts';
import { api, isApiError } from '../lib/api.ts';
import { formatTime } from '../lib/format.ts';
import { t } from '../lib/i18n.ts';
import { DetailDrawer } from '../ui/DetailDrawer.tsx';

/** "who · when" of a step or decision, or nothing before it happened. */
export const byAt = (by: string | null, at: string | null) =>
  by || at ? [by, formatTime(at)].filter(Boolean).join(' · ') : null;

/**
 * The record a deep-linked drawer read, or null while none is on screen, reported to the list through
 * `onShown` so the palette's row actions act on it. A deleted record (or another merchant's, or a
 * malformed number in the link) answers 404 even when an earlier read is still cached: `missing`.
 */
export function useDrawerRecord<R>(
  info: UseQueryResult<R>,
  onShown: ((record: R | null) => void) | undefined,
): { record: R | null; missing: boolean } {
  const missing = isApiError(info.error, errno.notFound) || isApiError(info.error, errno.invalid);
  const record = info.data && !missing ? info.data : null;
  useEffect(() => onShown?.(record), [record, onShown]);
  return { record, missing };
}

/**
 * `useDrawerRecord` of a record read by its id from an `info` endpoint (cached under `[key, id]`): a
 * missing record (404, or 422 for a malformed id in a link) is the drawer's to say, not a toast, and is
 * not asked again.
 */
export function useInfoRecord<E extends Endpoint>(
  key: string,
  endpoint: E,
  id: number,
  onShown: ((record: Output<E> | null) => void) | undefined,
): { record: Output<E> | null; missing: boolean } {
  const info = useQuery({
    queryKey: [key, id],
    queryFn: ({ signal }) =>
      api(endpoint, { id } as Input<E>, { signal, quiet: [errno.notFound, errno.invalid] }),
    retry: false,
  });
  return useDrawerRecord(info, onShown);
}

/**
 * The drawer before its record is on screen: loading, or the record is not there (`notFound` says which).
 * A function, not a component: the drawer stays the same `DetailDrawer` once the record arrives, so it is
 * not mounted again and still knows the row it returns the focus to on close.
 */
export function pendingDrawer({
  title,
  missing,
  notFound,
  onClose,
}: {
  title: string;
  missing: boolean;
  notFound: string;
  onClose: () => void;
}) {
  return (
    <DetailDrawer title={title} onClose={onClose}>
      <p className={missing ? 'notice' : 'muted'} role={missing ? 'alert' : 'status'}>
        {missing ? notFound : t('app.loading')}
      </p>
    </DetailDrawer>
  );
}
