import { useState } from 'react';
import type { Endpoint, Input } from '../../contract/index.ts';
import { errno } from '../../contract/index.ts';
import { requestHeaders, showRefusal, signInAgain } from '../lib/api.ts';
import { t } from '../lib/i18n.ts';
import { toast } from '../lib/notify.ts';
import { useT } from '../lib/useT.ts';
import { validate } from './form.tsx';
import { Icon } from './Icon.tsx';
import './lists.css';

export type ExportFormat = 'csv' | 'xlsx';

function queryString(input: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else params.set(key, String(value));
  }
  return params.toString();
}

/** `attachment; filename*=UTF-8''orders.csv` → `orders.csv`. */
function filenameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (star?.[1]) return decodeURIComponent(star[1]);
  return /filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? null;
}

/**
 * Downloads a file endpoint (`download: true`): a plain fetch with the calls' own headers (`requestHeaders`),
 * since the answer is a file, not the envelope; a refusal still comes as the envelope and is shown as
 * `api` shows it.
 * Resolves false when nothing was saved.
 */
export async function downloadFile<E extends Endpoint>(
  endpoint: E,
  input: Input<E>,
  fallbackName: string,
): Promise<boolean> {
  let answer: Response;
  try {
    answer = await fetch(`/api${endpoint.path}?${queryString(input as Record<string, unknown>)}`, {
      headers: requestHeaders(),
    });
  } catch {
    toast('error', t('app.errors.tryLater'), 5000);
    return false;
  }
  const type = answer.headers.get('content-type') ?? '';
  if (!answer.ok || type.includes('application/json')) {
    const body = (await answer.json().catch(() => null)) as { errno?: number; errmsg?: string } | null;
    const code = body?.errno ?? -1;
    if (code === errno.notSignedIn || code === errno.sessionExpired) await signInAgain();
    else if (body) showRefusal(code, body.errmsg || t(`errno.${code}`));
    else toast('error', t('app.errors.tryLater'), 5000);
    return false;
  }
  const blob = await answer.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filenameOf(answer.headers.get('content-disposition')) ?? fallbackName;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked a moment later: some browsers read the URL after click() returns.
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return true;
}

interface ExportButtonsProps<E extends Endpoint> {
  /** A `download: true` endpoint whose input is the list's filters plus `format`. */
  endpoint: E;
  /** The list's filters without paging; null while they are not valid (no period chosen). */
  input: Omit<Input<E>, 'format'> | null;
  /** The saved file's name without extension, when the server names none. */
  filename: string;
  formats?: readonly ExportFormat[];
}

/**
 * Export buttons of a list: the whole filtered set as CSV or XLSX, streamed by the server. The
 * endpoint's own schema checks the filters first (the one-week limit, for example), so the refusal
 * reads the same as the server's, without a round trip.
 */
export function ExportButtons<E extends Endpoint>(props: ExportButtonsProps<E>) {
  const tr = useT();
  const [busy, setBusy] = useState<ExportFormat | null>(null);
  const formats = props.formats ?? (['csv', 'xlsx'] as const);

  const run = async (format: ExportFormat) => {
    if (!props.input) {
      toast('warning', tr('lists.period.required'));
      return;
    }
    const input = { ...props.input, format } as Input<E>;
    const checked = validate(props.endpoint.input, input);
    if (!checked.ok) {
      toast('warning', Object.values(checked.errors)[0] ?? tr('validation.invalid'), 4000);
      return;
    }
    setBusy(format);
    try {
      if (await downloadFile(props.endpoint, input, `${props.filename}.${format}`))
        toast('success', tr('lists.export.done'));
    } finally {
      setBusy(null);
    }
  };

  return (
    // biome-ignore lint/a11y/useSemanticElements: a group of buttons, not a form's fieldset
    <div className="export-buttons" role="group" aria-label={tr('lists.export.label')}>
      {formats.map((format) => (
        <button
          key={format}
          type="button"
          className="button"
          disabled={busy !== null}
          aria-busy={busy === format || undefined}
          onClick={() => void run(format)}
        >
          <Icon name="download" />
          {busy === format ? tr('lists.export.busy') : tr(`lists.export.${format}`)}
        </button>
      ))}
    </div>
  );
}
