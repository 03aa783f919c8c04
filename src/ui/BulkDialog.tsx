import { type ReactNode, useRef, useState } from 'react';
import { allErrnos, errno } from '../../contract/index.ts';
import { isApiError } from '../lib/api.ts';
import { t } from '../lib/i18n.ts';
import { useT } from '../lib/useT.ts';
import { Badge } from './Badge.tsx';
import { Modal } from './Modal.tsx';
import { useOpeningFocus } from './openingFocus.ts';
import './lists.css';

/**
 * Errnos a bulk run shows in its own result column instead of one alert per row; 501 and 506 still
 * sign the user out as everywhere else.
 */
export const bulkQuiet = allErrnos.filter(
  (code) => code !== errno.notSignedIn && code !== errno.sessionExpired,
);

/** The line a failed row shows: the API's message (already in the user's language), or a generic one. */
export function bulkErrorText(error: unknown): string {
  return isApiError(error) ? `${error.errno}: ${error.message}` : t('app.errors.failed');
}

export interface BulkRow {
  key: string;
  /** Already translated. */
  label: string;
  detail?: ReactNode;
  /** Why this row is left out (already translated): shown in the preview, never run. */
  skip?: string;
}

export interface BulkResult {
  ok: boolean;
  /** Already translated. */
  text: string;
}

interface BulkDialogProps {
  title: string;
  /** Already translated: what will happen. */
  intro: string;
  rows: BulkRow[];
  /** The run button's text, already translated. */
  runLabel: string;
  danger?: boolean;
  /** One text value per row, edited in the preview (a UTR per order, for example). */
  input?: {
    label: string;
    initial: (key: string) => string;
    /** A message (already translated) when the value is not acceptable. */
    check?: (value: string) => string | null;
  };
  run: (key: string, value: string) => Promise<BulkResult>;
  /** Rows run at once; the server does each on its own. */
  concurrency?: number;
  /** Closes with true when anything ran, so the list refreshes. */
  close: (result?: unknown) => void;
}

type Phase = 'preview' | 'running' | 'done';

/**
 * A bulk action on a selection: a preview of the rows (and those left out, with the reason), then one
 * call per row with its own result, so one refusal never hides the others.
 */
export function BulkDialog(props: BulkDialogProps) {
  const tr = useT();
  const [phase, setPhase] = useState<Phase>('preview');
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(props.rows.map((r) => [r.key, props.input?.initial(r.key) ?? ''])),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [results, setResults] = useState<Record<string, BulkResult | 'running'>>({});
  const cancelled = useRef(false);
  // The first value to fill in, or with none the run button: Enter runs the previewed action.
  const bodyRef = useOpeningFocus<HTMLDivElement>(props.input ? '.bulk-input' : '.bulk-run');
  const runnable = props.rows.filter((r) => !r.skip);
  const doneCount = Object.values(results).filter((r) => r !== 'running').length;
  const okCount = Object.values(results).filter((r) => r !== 'running' && r.ok).length;

  const start = async () => {
    if (props.input?.check) {
      const found: Record<string, string> = {};
      for (const r of runnable) {
        const message = props.input.check(values[r.key] ?? '');
        if (message) found[r.key] = message;
      }
      setErrors(found);
      if (Object.keys(found).length) return;
    }
    setPhase('running');
    const queue = [...runnable];
    const worker = async () => {
      for (let row = queue.shift(); row && !cancelled.current; row = queue.shift()) {
        const key = row.key;
        setResults((r) => ({ ...r, [key]: 'running' }));
        let result: BulkResult;
        try {
          result = await props.run(key, (values[key] ?? '').trim());
        } catch (error) {
          result = { ok: false, text: bulkErrorText(error) };
        }
        setResults((r) => ({ ...r, [key]: result }));
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, props.concurrency ?? 3) }, worker));
    setPhase('done');
  };

  const close = () => {
    cancelled.current = true;
    props.close(phase === 'preview' ? undefined : true);
  };

  return (
    <Modal title={props.title} onClose={close} variant="sheet">
      <div ref={bodyRef}>
        <p className="modal-text">{props.intro}</p>
        <div className="bulk-table-wrap">
          <table className="bulk-table">
            <thead>
              <tr>
                <th>{tr('lists.bulk.record')}</th>
                {props.input && <th>{props.input.label}</th>}
                <th>{tr('lists.bulk.result')}</th>
              </tr>
            </thead>
            <tbody>
              {props.rows.map((row) => {
                const result = results[row.key];
                return (
                  <tr key={row.key} className={row.skip ? 'skipped' : undefined}>
                    <td>
                      <div className="mono">{row.label}</div>
                      {row.detail && <div className="muted bulk-detail">{row.detail}</div>}
                    </td>
                    {props.input && (
                      <td>
                        {!row.skip && (
                          <>
                            <input
                              className="bulk-input"
                              aria-label={`${props.input.label} ${row.label}`}
                              value={values[row.key] ?? ''}
                              disabled={phase !== 'preview'}
                              aria-invalid={errors[row.key] ? true : undefined}
                              onChange={(e) => {
                                const value = e.target.value;
                                setValues((v) => ({ ...v, [row.key]: value }));
                              }}
                            />
                            {errors[row.key] && <p className="field-error">{errors[row.key]}</p>}
                          </>
                        )}
                      </td>
                    )}
                    <td aria-live="polite">
                      {row.skip ? (
                        <Badge tone="muted">{row.skip}</Badge>
                      ) : result === 'running' ? (
                        <span className="muted">{tr('lists.bulk.running')}</span>
                      ) : result ? (
                        <span className={result.ok ? 'bulk-ok' : 'bulk-bad'}>
                          <Badge tone={result.ok ? 'ok' : 'bad'}>
                            {tr(result.ok ? 'lists.bulk.ok' : 'lists.bulk.failed')}
                          </Badge>{' '}
                          {result.text}
                        </span>
                      ) : (
                        <span className="muted">{tr('lists.bulk.waiting')}</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <div className="modal-actions bulk-actions">
          <span className="bulk-progress" role="status">
            {phase === 'preview'
              ? tr('lists.bulk.willRun', { n: runnable.length, skipped: props.rows.length - runnable.length })
              : tr('lists.bulk.progress', { done: doneCount, n: runnable.length, ok: okCount })}
          </span>
          <button type="button" className="button" onClick={close}>
            {tr(phase === 'preview' ? 'app.cancel' : 'app.close')}
          </button>
          {phase === 'preview' && (
            <button
              type="button"
              className={`button bulk-run ${props.danger ? 'danger' : 'primary'}`}
              disabled={runnable.length === 0}
              onClick={() => void start()}
            >
              {props.runLabel}
            </button>
          )}
        </div>
      </div>
    </Modal>
  );
}
