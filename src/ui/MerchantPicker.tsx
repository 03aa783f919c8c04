import { useStore } from '@nanostores/react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { type ReactNode, useCallback, useEffect, useId, useState } from 'react';
import { useSearchParams } from 'wouter';
import { allows, endpoints } from '../../contract/index.ts';
import { api } from '../lib/api.ts';
import { $grants, $user } from '../lib/session.ts';
import { useT } from '../lib/useT.ts';
import './merchant-picker.css';
import { merchantIdInView } from './merchantInView.ts';

/**
 * The merchant a platform user is looking at, kept in the URL as `merchantId` (so it deep-links and the
 * registry's actions can read it); choosing another one starts paging again from the top.
 */
export function useMerchantParam(): [number | undefined, (id: number | undefined) => void] {
  const [params, setParams] = useSearchParams();
  const value = merchantIdInView(`?${params.toString()}`);
  const set = (id: number | undefined) =>
    setParams((p) => {
      const out = new URLSearchParams(p);
      if (id === undefined) out.delete('merchantId');
      else out.set('merchantId', String(id));
      out.delete('cursor');
      out.delete('page');
      return out;
    });
  return [value, set];
}

/**
 * A list of several merchants' records: a platform user sees every merchant's or the one picked in the
 * toolbar (`merchantId` in the list's input), a merchant user its own (the server's scope). Answers
 * whether the user is the platform's, the list's `toInput` and the toolbar's picker.
 */
export function useMerchantList(): {
  platform: boolean;
  toInput: (filters: Record<string, string>) => Record<string, unknown>;
  picker: ReactNode;
} {
  const platform = useStore($user)?.kind === 'platform';
  const [merchantId, setMerchantId] = useMerchantParam();
  const toInput = useCallback(
    (filters: Record<string, string>) => ({ ...filters, merchantId: platform ? merchantId : undefined }),
    [platform, merchantId],
  );
  const picker = platform && <MerchantPicker value={merchantId} onValue={setMerchantId} allowAll />;
  return { platform, toInput, picker };
}

interface MerchantPickerProps {
  value: number | undefined;
  onValue: (id: number | undefined) => void;
  /** Offer "all merchants" (an empty choice); otherwise the first option asks to choose one. */
  allowAll?: boolean;
}

/**
 * Chooses a merchant (platform users): a search box narrows the list by code or name on the server, a
 * select picks one. Without the merchant list permission it falls back to typing the merchant id.
 */
export function MerchantPicker({ value, onValue, allowAll = false }: MerchantPickerProps) {
  const t = useT();
  const id = useId();
  const grants = useStore($grants);
  const canList = allows(grants, [endpoints.merchant.list]);
  const [draft, setDraft] = useState('');
  const [q, setQ] = useState('');
  useEffect(() => {
    const timer = window.setTimeout(() => setQ(draft.trim()), 250);
    return () => window.clearTimeout(timer);
  }, [draft]);
  const list = useQuery({
    queryKey: ['merchant-picker', q],
    queryFn: ({ signal }) => api(endpoints.merchant.list, { pageSize: 100, q: q || undefined }, { signal }),
    enabled: canList,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
  const options = list.data?.list ?? [];
  const many = (list.data?.total ?? 0) > options.length || q !== '';

  if (!canList) {
    return (
      <label className="filter">
        <span className="filter-label">{t('ui.merchantPicker.id')}</span>
        <input
          type="text"
          inputMode="numeric"
          value={value ?? ''}
          onChange={(e) => {
            const n = Number(e.target.value);
            onValue(Number.isInteger(n) && n > 0 ? n : undefined);
          }}
        />
      </label>
    );
  }
  return (
    <div className="merchant-picker">
      {many && (
        <label className="filter">
          <span className="filter-label">{t('ui.merchantPicker.search')}</span>
          <input type="search" value={draft} onChange={(e) => setDraft(e.target.value)} />
        </label>
      )}
      <label className="filter" htmlFor={id}>
        <span className="filter-label">{t('ui.merchantPicker.merchant')}</span>
        <select
          id={id}
          value={value ?? ''}
          onChange={(e) => onValue(e.target.value ? Number(e.target.value) : undefined)}
        >
          <option value="">{t(allowAll ? 'ui.merchantPicker.all' : 'ui.merchantPicker.choose')}</option>
          {value !== undefined && !options.some((m) => m.id === value) && (
            <option value={value}>#{value}</option>
          )}
          {options.map((m) => (
            <option key={m.id} value={m.id}>
              {m.code} · {m.name}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
