import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useId, useMemo, useRef, useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { endpoints, errno, type Input, type Output } from '../../../contract/index.ts';
import { ApiError, api, base64Of } from '../../lib/api.ts';
import { formatTime, thousands } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { keyCaps } from '../../shell/keys.ts';
import { CommandButton } from '../../ui/CommandButton.tsx';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { FieldGroup, SelectField, TextAreaField } from '../../ui/fields.tsx';
import { Field } from '../../ui/form.tsx';
import { TotalsBar } from '../../ui/TotalsBar.tsx';
import { Page } from '../Page.tsx';
import { saveImportFile } from './download.ts';
import { draftOf, emptyDraft, type MappingDraft, MappingEditor, mappingOf } from './MappingEditor.tsx';
import { type Import, useReceivingAccounts } from './parts.tsx';
import './statement.css';

type ImportInput = Input<typeof endpoints.statement.import>;
type Answer = Output<typeof endpoints.statement.import>;
type RowError = Answer['errors'][number];
type MappingRow = Output<typeof endpoints.statementMapping.list>['list'][number];

/** The mapping select's two ways that are no saved mapping: detect from the file (''), or write one. */
const detectChoice = '';
const writeChoice = 'write';

/** A preview with nothing read yet (what a refusal of the rows shows beside them). */
const nothingRead: Answer = {
  importId: null,
  format: 'csv',
  mapping: null,
  detected: false,
  bank: null,
  totals: { credits: { count: 0, sum: '0.00' }, debits: { count: 0, sum: '0.00' } },
  skipped: { count: 0, rows: [] },
  counts: { lines: 0, new: 0, duplicates: 0, matched: 0, ready: 0, proposed: 0, exceptions: 0 },
  wouldPay: { count: 0, sum: '0.00' },
  errors: [],
  gaps: [],
  preview: [],
};

/** The server reads at most 10 MB (docs/STATEMENTS.md); a larger file is refused here before it is sent. */
const maxFileBytes = 10 * 1024 * 1024;
/** How often a running import's progress is read. */
const pollMs = 500;
/** The errno `api` gives a call that got no answer (src/lib/api.ts). */
const transportFailed = -1;

/** A mapping choice as the select holds it: a saved one by id, a preset by key, or written here. */
const choiceOf = (m: MappingRow) => (m.id === null ? `preset:${m.preset}` : `saved:${m.id}`);

/** The counts of a preview or an import, in the order a person reads them. */
const countKeys = ['lines', 'new', 'duplicates', 'matched', 'ready', 'proposed', 'exceptions'] as const;

/** The field a 422 names (`mapping.dateColumn` → `dateColumn`), for the messages next to the fields. */
function fieldsOf(error: ApiError): Record<string, string> {
  const list = (error.data as { fields?: { path: string; message: string }[] } | null)?.fields ?? [];
  const out: Record<string, string> = {};
  for (const f of list) out[String(f.path).replace(/^mapping\./, '')] ??= f.message;
  return out;
}

/** The form fields a 422 can name; any other message is said above the buttons. */
const formFields = new Set([
  'accountId',
  ...Object.keys(emptyDraft),
  'amountColumn',
  'creditColumn',
  'debitColumn',
]);

/**
 * Imports a receiving account's bank statement: the account, a mapping (a saved one, a bank's preset,
 * or written here and saved under a name), a file (CSV or XLSX) or pasted text. Preview reads the
 * statement without writing anything: counts, the rows that cannot be read, balance gaps and the first
 * lines; Import (only once the preview has no row errors) saves and matches, its progress followed by
 * a key while the request runs. Below, the imports so far, each with its kept file.
 */
export default function ImportScreen() {
  const t = useT();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const accountId = params.get('accountId') ?? '';
  const setAccount = (value: string) =>
    setParams(
      (p) => {
        const out = new URLSearchParams(p);
        if (value) out.set('accountId', value);
        else out.delete('accountId');
        out.delete('page');
        return out;
      },
      { replace: true },
    );

  const accounts = useReceivingAccounts();
  const mappings = useQuery({
    queryKey: ['statementMapping', 'list'],
    queryFn: ({ signal }) => api(endpoints.statementMapping.list, {}, { signal }),
  });

  const [choice, setChoice] = useState('');
  const [draft, setDraft] = useState<MappingDraft>(emptyDraft);
  const [edited, setEdited] = useState(false);
  const chosen = mappings.data?.list.find((m) => choiceOf(m) === choice);
  const choose = (value: string) => {
    setChoice(value);
    const row = mappings.data?.list.find((m) => choiceOf(m) === value);
    setDraft(row ? draftOf(row.mapping) : emptyDraft);
    setEdited(false);
    setErrors({});
  };
  const editDraft = (next: MappingDraft) => {
    setDraft(next);
    setEdited(true);
    setErrors({});
  };

  const fileId = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [text, setText] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState<'preview' | 'import' | null>(null);
  const [preview, setPreview] = useState<{ question: string; answer: Answer } | null>(null);
  const [done, setDone] = useState<Done | null>(null);
  const [importKey, setImportKey] = useState<string | null>(null);
  /** The importer chose to import the readable lines of a file with row errors. */
  const [skipRowErrors, setSkipRowErrors] = useState(false);

  /** The statement and how to read it, as both calls send it (the file read once per call). */
  const question = useMemo(
    () =>
      JSON.stringify({
        accountId,
        choice,
        draft: edited || !chosen || chosen.id === null ? draft : null,
        file: file ? [file.name, file.size, file.lastModified] : null,
        text: file ? '' : text,
      }),
    [accountId, choice, edited, chosen, draft, file, text],
  );
  const fresh = preview?.question === question ? preview.answer : null;

  const inputOf = async (): Promise<ImportInput | null> => {
    const wanted: Record<string, string> = {};
    if (!accountId) wanted.accountId = t('validation.required');
    if (!file && text.trim() === '') wanted.source = t('statement.import.sourceRequired');
    if (file && file.size > maxFileBytes) wanted.source = t('statement.tooLarge', { max: 10 });
    if (Object.keys(wanted).length) {
      setErrors(wanted);
      return null;
    }
    const saved = chosen && chosen.id !== null && !edited;
    const detect = choice === detectChoice && !edited;
    return {
      accountId: Number(accountId),
      ...(detect ? {} : saved ? { mappingId: chosen.id as number } : { mapping: mappingOf(draft) }),
      ...(file ? { file: await base64Of(file), fileName: file.name.slice(0, 200) } : { text }),
    };
  };

  /** Says what the server refused: field messages next to their fields, row errors in the table. */
  const refused = (error: unknown) => {
    if (!(error instanceof ApiError)) throw error;
    if (error.errno === errno.statementRows) {
      const rows = (error.data as { rows?: RowError[] } | null)?.rows ?? [];
      setPreview({ question, answer: { ...(fresh ?? nothingRead), errors: rows } });
      return;
    }
    const fields = fieldsOf(error);
    const own = Object.fromEntries(Object.entries(fields).filter(([k]) => formFields.has(k)));
    const other = Object.entries(fields)
      .filter(([k]) => !formFields.has(k))
      .map(([, m]) => m);
    setErrors(own);
    setProblem(other.length ? other.join(' · ') : Object.keys(own).length ? null : error.message);
  };

  const runPreview = async (e?: React.FormEvent) => {
    e?.preventDefault();
    setProblem(null);
    setDone(null);
    const input = await inputOf();
    if (!input) return;
    setBusy('preview');
    try {
      const answer = await api(endpoints.statement.import, { ...input, dryRun: true }, { quiet: quietCodes });
      setPreview({ question, answer });
      setSkipRowErrors(false);
    } catch (error) {
      refused(error);
    } finally {
      setBusy(null);
    }
  };

  /** An import done: its counts, the ways on, and every list read again. */
  const finish = (row: Done) => {
    const { counts } = row;
    setDone(row);
    setPreview(null);
    setBusy(null);
    setImportKey(null);
    setFollowing(false);
    toast('success', t('statement.import.imported', { n: counts.new }));
    void queryClient.invalidateQueries();
  };
  // Set when the call stopped waiting for a large import (the console's calls give up after 20 s) while
  // the server goes on: the import's progress then says when it is done.
  const [following, setFollowing] = useState(false);

  const runImport = async () => {
    setProblem(null);
    const input = await inputOf();
    if (!input) return;
    const key = crypto.randomUUID();
    setImportKey(key);
    setBusy('import');
    try {
      const answer = await api(
        endpoints.statement.import,
        { ...input, key, ...(skipRowErrors ? { skipRowErrors } : {}) },
        { quiet: quietCodes },
      );
      const account = accounts.data?.list.find((a) => a.id === input.accountId);
      finish({
        importId: answer.importId,
        counts: answer.counts,
        wouldPay: answer.wouldPay,
        fileName: input.fileName ?? t('statement.source.paste'),
        accountLabel: account ? `${account.bankName} · ${account.accountNumber}` : '',
      });
    } catch (error) {
      if (error instanceof ApiError && error.errno === transportFailed) {
        setFollowing(true);
        return;
      }
      refused(error);
      setBusy(null);
      setImportKey(null);
    }
  };

  const progress = useQuery({
    queryKey: ['statement-import-progress', importKey],
    queryFn: ({ signal }) =>
      api(endpoints.statement.importInfo, { key: importKey as string }, { signal, quiet: [errno.notFound] }),
    enabled: importKey !== null,
    refetchInterval: pollMs,
    retry: false,
  });
  const followed = following ? progress.data : undefined;
  const lost = following && progress.isError;
  useEffect(() => {
    if (followed?.status === 'done') finish({ ...followed, importId: followed.id });
  });
  useEffect(() => {
    if (!lost) return;
    setFollowing(false);
    setBusy(null);
    setImportKey(null);
    setProblem(t('statement.import.lost'));
  }, [lost, t]);
  const running = importKey !== null ? progress.data : undefined;

  // Saving the mapping as written, under a name (a bank's name too, for the list).
  const [saveName, setSaveName] = useState('');
  const [saveBank, setSaveBank] = useState('');
  const [saving, setSaving] = useState(false);
  const saveMapping = async () => {
    setSaving(true);
    try {
      const saved = await api(
        endpoints.statementMapping.save,
        {
          name: saveName.trim(),
          bankName: (saveBank || chosen?.bankName || '').trim(),
          mapping: mappingOf(draft),
        },
        { quiet: [errno.invalid, errno.conflict] },
      );
      toast('success', t('statement.import.mappingSaved', { name: saveName.trim() }));
      await mappings.refetch();
      setChoice(`saved:${saved.id}`);
      setEdited(false);
      setSaveName('');
      setSaveBank('');
    } catch (error) {
      // A name taken by another mapping is said next to the name.
      if (error instanceof ApiError && error.errno === errno.conflict) setErrors({ name: error.message });
      else if (error instanceof ApiError && error.errno === errno.invalid) setErrors(fieldsOf(error));
      else if (!(error instanceof ApiError)) throw error;
    } finally {
      setSaving(false);
    }
  };

  const title = t('commands.statement.import.title');
  const accountOptions = [
    { value: '', label: t('statement.import.chooseAccount') },
    ...(accounts.data?.list ?? []).map((a) => ({
      value: String(a.id),
      label: `${a.bankName} · ${a.accountNumber} · ${a.accountName}`,
    })),
  ];
  const saved = (mappings.data?.list ?? []).filter((m) => m.id !== null);
  const presets = (mappings.data?.list ?? []).filter((m) => m.id === null);
  const rowErrors = fresh?.errors.length ?? 0;
  const canImport = !!fresh && (rowErrors === 0 || skipRowErrors) && fresh.counts.lines > 0 && busy === null;
  /** The mapping the preview found, taken into the editor to correct and save. */
  const takeDetected = (mapping: NonNullable<Answer['mapping']>) => {
    setChoice(writeChoice);
    setDraft(draftOf(mapping));
    setEdited(false);
    setErrors({});
  };

  return (
    <Page
      title={title}
      actions={
        <Link href="/receiving/exceptions" className="button">
          {t('commands.statement.exceptions.title')}
        </Link>
      }
    >
      <form
        className="form statement-import"
        onSubmit={runPreview}
        // Ctrl-Enter previews from any field (the paste area too); Ctrl-Shift-Enter imports the preview.
        onKeyDown={(e) => {
          if (e.key !== 'Enter' || !(e.ctrlKey || e.metaKey)) return;
          e.preventDefault();
          if (!e.shiftKey) void runPreview();
          else if (canImport) void runImport();
        }}
        noValidate
      >
        <FieldGroup title={t('statement.import.source')}>
          <SelectField
            label={t('statement.import.account')}
            value={accountId}
            onValue={setAccount}
            error={errors.accountId}
            options={accountOptions}
          />
          <div className="field">
            <label htmlFor={`${fileId}-mapping`}>{t('statement.import.mappingChoice')}</label>
            <select id={`${fileId}-mapping`} value={choice} onChange={(e) => choose(e.target.value)}>
              <option value={detectChoice}>{t('statement.import.detect')}</option>
              <option value={writeChoice}>{t('statement.import.writeMapping')}</option>
              {saved.length > 0 && (
                <optgroup label={t('statement.import.savedMappings')}>
                  {saved.map((m) => (
                    <option key={choiceOf(m)} value={choiceOf(m)}>
                      {`${m.name} · ${m.bankName}`}
                    </option>
                  ))}
                </optgroup>
              )}
              <optgroup label={t('statement.import.presets')}>
                {presets.map((m) => (
                  <option key={choiceOf(m)} value={choiceOf(m)}>
                    {m.bankName}
                  </option>
                ))}
              </optgroup>
            </select>
            <p className="field-hint">
              {chosen && edited ? t('statement.import.mappingEdited') : t('statement.import.mappingHint')}
            </p>
          </div>
        </FieldGroup>

        <details className="statement-mapping-box" open={choice === writeChoice || edited || undefined}>
          <summary>{t('statement.import.editMapping')}</summary>
          <MappingEditor draft={draft} onDraft={editDraft} errors={errors} />
          <div className="field-row statement-save-mapping">
            <Field
              label={t('statement.import.saveName')}
              value={saveName}
              onValue={setSaveName}
              error={errors.name}
              maxLength={100}
              autoComplete="off"
            />
            <Field
              label={t('statement.import.saveBank')}
              value={saveBank}
              onValue={setSaveBank}
              error={errors.bankName}
              placeholder={chosen?.bankName}
              maxLength={100}
              autoComplete="off"
            />
            <button
              type="button"
              className="button"
              disabled={saving || saveName.trim() === ''}
              onClick={() => void saveMapping()}
            >
              {t('statement.import.saveMapping')}
            </button>
          </div>
        </details>

        <FieldGroup title={t('statement.import.statement')}>
          <div className="statement-source field-wide">
            <div className={`field${errors.source ? ' has-error' : ''}`}>
              <label htmlFor={fileId}>{t('statement.import.file')}</label>
              <input
                id={fileId}
                ref={fileInput}
                type="file"
                accept=".csv,.txt,.xlsx,.xls,.sta,.mt940,.940,.xml,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet,application/vnd.ms-excel,application/xml"
                onChange={(e) => {
                  setFile(e.target.files?.[0] ?? null);
                  setErrors({});
                }}
              />
              <p className="field-hint">
                {file ? (
                  <>
                    {t('statement.import.fileChosen', { name: file.name, size: thousands(file.size) })}{' '}
                    <button
                      type="button"
                      className="link"
                      onClick={() => {
                        setFile(null);
                        if (fileInput.current) fileInput.current.value = '';
                      }}
                    >
                      {t('statement.import.clearFile')}
                    </button>
                  </>
                ) : (
                  t('statement.import.fileHint')
                )}
              </p>
            </div>
            <TextAreaField
              label={t('statement.import.paste')}
              value={text}
              onValue={(v) => {
                setText(v);
                setErrors({});
              }}
              hint={file ? t('statement.import.pasteIgnored') : t('statement.import.pasteHint')}
              disabled={!!file}
              rows={5}
              spellCheck={false}
            />
          </div>
          {errors.source && (
            <p className="field-error field-wide" role="alert">
              {errors.source}
            </p>
          )}
        </FieldGroup>

        {problem && (
          <p className="danger-note" role="alert">
            {problem}
          </p>
        )}
        <div className="form-actions statement-actions">
          {busy === 'import' ? (
            <ImportProgress row={running} />
          ) : (
            <span className="muted statement-keys-hint">
              {t('statement.import.keys', {
                preview: keyCaps('mod+Enter').join('-'),
                import: keyCaps('mod+Shift+Enter').join('-'),
              })}
            </span>
          )}
          <button type="submit" className="button" disabled={busy !== null}>
            {t('statement.import.preview')}
          </button>
          <button
            type="button"
            className="button primary"
            disabled={!canImport}
            title={fresh && rowErrors > 0 ? t('statement.import.fixRowsFirst') : undefined}
            onClick={() => void runImport()}
          >
            {t('statement.import.import')}
          </button>
        </div>
      </form>

      {done && <ImportDone done={done} accountId={accountId} />}
      {preview && !done && (
        <Preview
          answer={preview.answer}
          stale={!fresh}
          onUseMapping={takeDetected}
          bankName={(id) => presets.find((m) => m.preset === id)?.bankName ?? id}
          skipRowErrors={skipRowErrors}
          onSkipRowErrors={setSkipRowErrors}
        />
      )}

      <h2 className="statement-heading">{t('statement.import.history')}</h2>
      <DataTable
        id="statement-imports"
        label={t('statement.import.history')}
        endpoint={endpoints.statement.imports}
        context="statementImportRow"
        columns={historyColumns}
        input={{ accountId: accountId || undefined }}
        paging="page"
        live
        rowKey={(r) => String(r.id)}
        detailTitle={(r) => r.fileName}
      />
    </Page>
  );
}

/** What the import calls show themselves: bad input and unreadable rows (the rest alerts as usual). */
const quietCodes = [errno.invalid, errno.statementRows, errno.payloadTooLarge];

/** A running import: lines written of lines read, as a bar. */
function ImportProgress({ row }: { row: Output<typeof endpoints.statement.importInfo> | undefined }) {
  const t = useT();
  return (
    <span className="statement-progress" role="status">
      <progress max={row?.lineCount || 1} value={row ? row.processed : undefined} />
      <span>
        {row
          ? t('statement.import.progress', {
              processed: thousands(row.processed),
              lines: thousands(row.lineCount),
            })
          : t('statement.import.reading')}
      </span>
    </span>
  );
}

function CountsBar({ counts, label }: { counts: Answer['counts']; label: string }) {
  const t = useT();
  return (
    <TotalsBar
      label={t('statement.import.countsOf', { of: label })}
      items={countKeys.map((k) => ({
        id: k,
        label: t(`statement.import.counts.${k}`),
        value: thousands(counts[k]),
        ...(k === 'new' || k === 'exceptions' ? { tone: 'strong' as const } : {}),
      }))}
    />
  );
}

/** A finished import as the result panel shows it and its Post action takes it. */
interface Done {
  importId: number | null;
  counts: Answer['counts'];
  wouldPay: Answer['wouldPay'];
  fileName: string;
  accountLabel: string;
}

/**
 * The import's result, with the ways on: what its ready lines would pay and the action that posts them
 * (a finance user's money decision: the command `statement.post`, shown only to who may run it), the
 * exceptions it opened, the proposals, its lines.
 */
function ImportDone({ done, accountId }: { done: Done; accountId: string }) {
  const t = useT();
  const { counts, importId } = done;
  const account = accountId ? `&accountId=${accountId}` : '';
  return (
    <section className="statement-result" aria-label={t('statement.import.result')}>
      <h2 className="statement-heading">{t('statement.import.result')}</h2>
      <CountsBar counts={counts} label={t('statement.import.result')} />
      {importId !== null && done.wouldPay.count > 0 && (
        <div className="statement-would-pay" role="status">
          <p>
            {t('statement.import.wouldPay', {
              n: thousands(done.wouldPay.count),
              sum: thousands(done.wouldPay.sum),
            })}
          </p>
          <CommandButton
            id="statement.post"
            primary
            target={{
              id: importId,
              fileName: done.fileName,
              accountLabel: done.accountLabel,
              wouldPay: done.wouldPay,
            }}
          />
        </div>
      )}
      <p className="statement-links">
        {counts.exceptions > 0 && (
          <Link href={`/receiving/exceptions?${account.slice(1)}`} className="link">
            {t('statement.import.toExceptions', { n: counts.exceptions })}
          </Link>
        )}
        {counts.ready > 0 && (
          <Link href={`/receiving/exceptions?kind=ready${account}`} className="link">
            {t('statement.import.toReady', { n: counts.ready })}
          </Link>
        )}
        {counts.proposed > 0 && (
          <Link href={`/receiving/exceptions?kind=proposed${account}`} className="link">
            {t('statement.import.toProposed', { n: counts.proposed })}
          </Link>
        )}
        {importId !== null && (
          <Link href={`/receiving/statement?importId=${importId}`} className="link">
            {t('statement.import.toLines')}
          </Link>
        )}
      </p>
    </section>
  );
}

/**
 * The preview: how the file was read (the detected mapping, to take into the editor), the whole file's
 * totals, counts, the rows that cannot be read (and the choice to import the rest), the rows that are no
 * transaction, balance gaps, then the first lines as read.
 */
function Preview({
  answer,
  stale,
  onUseMapping,
  bankName,
  skipRowErrors,
  onSkipRowErrors,
}: {
  answer: Answer;
  stale: boolean;
  onUseMapping: (mapping: NonNullable<Answer['mapping']>) => void;
  /** A preset's bank name by its id (detection answers the id). */
  bankName: (id: string) => string;
  skipRowErrors: boolean;
  onSkipRowErrors: (skip: boolean) => void;
}) {
  const t = useT();
  const format = t(`statement.import.formats.${answer.format}`);
  // Only a feed's file states a currency: a column of dashes otherwise.
  const withCurrency = answer.preview.some((l) => l.currency !== null);
  const { credits, debits } = answer.totals;
  return (
    <section
      className={`statement-preview${stale ? ' stale' : ''}`}
      aria-label={t('statement.import.previewTitle')}
    >
      <h2 className="statement-heading">{t('statement.import.previewTitle')}</h2>
      {stale && (
        <p className="notice" role="status">
          {t('statement.import.stale')}
        </p>
      )}
      <p className="statement-read" data-testid="statement-read">
        {answer.mapping ? (
          <>
            {t('statement.import.detected', {
              format,
              bank: answer.bank ? t('statement.import.detectedBank', { bank: bankName(answer.bank) }) : '',
              row: answer.mapping.headerRow ?? '',
              dateFormat: answer.mapping.dateFormat ?? '',
            })}{' '}
            {answer.detected && (
              <button type="button" className="link" onClick={() => onUseMapping(answer.mapping!)}>
                {t('statement.import.useDetected')}
              </button>
            )}
          </>
        ) : (
          t('statement.import.feedRead', { format })
        )}
      </p>
      <dl className="statement-totals" aria-label={t('statement.import.totals')}>
        <div>
          <dt>{t('statement.import.credits')}</dt>
          <dd data-testid="totals-credits">
            {t('statement.import.totalOf', { count: thousands(credits.count), sum: thousands(credits.sum) })}
          </dd>
        </div>
        <div>
          <dt>{t('statement.import.debits')}</dt>
          <dd data-testid="totals-debits">
            {t('statement.import.totalOf', { count: thousands(debits.count), sum: thousands(debits.sum) })}
          </dd>
        </div>
        <p className="muted">{t('statement.import.totalsHint')}</p>
      </dl>
      <CountsBar counts={answer.counts} label={t('statement.import.previewTitle')} />
      {answer.importId === null && <p className="muted">{t('statement.import.matchOnImport')}</p>}
      {answer.errors.length > 0 && (
        <>
          <MiniTable
            title={t('statement.import.rowErrors', { n: answer.errors.length })}
            tone="bad"
            head={[t('statement.import.row'), t('statement.import.column'), t('statement.import.message')]}
            rows={answer.errors.map((e) => [String(e.row), e.column, e.message])}
            numeric={[0]}
          />
          {answer.counts.lines > 0 && (
            <label className="check statement-skip-errors">
              <input
                type="checkbox"
                checked={skipRowErrors}
                onChange={(e) => onSkipRowErrors(e.target.checked)}
              />
              {t('statement.import.skipRowErrors', { n: answer.errors.length })}
            </label>
          )}
        </>
      )}
      {answer.skipped.count > 0 && (
        <details className="statement-skipped">
          <summary>{t('statement.import.skipped', { count: thousands(answer.skipped.count) })}</summary>
          {answer.skipped.rows.length > 0 && (
            <MiniTable
              title={t('statement.import.skippedHint')}
              head={[t('statement.import.row'), t('statement.import.kind'), t('statement.import.rowText')]}
              rows={answer.skipped.rows.map((r) => [
                String(r.row),
                t(`statement.import.skipKinds.${r.kind}`),
                r.text,
              ])}
              numeric={[0]}
            />
          )}
        </details>
      )}
      {answer.gaps.length > 0 && (
        <MiniTable
          title={t('statement.import.gaps', { n: answer.gaps.length })}
          tone="warn"
          head={[t('statement.import.row'), t('statement.import.expected'), t('statement.import.found')]}
          rows={answer.gaps.map((g) => [String(g.row), thousands(g.expected), thousands(g.found)])}
          numeric={[0, 1, 2]}
          note={t('statement.import.gapsHint')}
        />
      )}
      {answer.preview.length > 0 && (
        <MiniTable
          title={t('statement.import.firstLines', { n: answer.preview.length, lines: answer.counts.lines })}
          head={[
            t('statement.import.row'),
            t('statement.screen.columns.day'),
            t('statement.screen.columns.direction'),
            t('statement.screen.columns.amount'),
            ...(withCurrency ? [t('statement.import.currency')] : []),
            t('statement.screen.columns.balance'),
            t('statement.screen.columns.utr'),
            t('statement.screen.columns.reference'),
            t('statement.screen.columns.narration'),
          ]}
          rows={answer.preview.map((l) => [
            String(l.row),
            l.day,
            <span key="d">
              {t(`statement.screen.directions.${l.direction}`)}
              {l.duplicate && <span className="muted"> · {t('statement.import.duplicate')}</span>}
            </span>,
            thousands(l.amount),
            ...(withCurrency ? [l.currency ?? '—'] : []),
            l.balance === null ? '—' : thousands(l.balance),
            l.utr ?? '—',
            l.reference ?? '—',
            l.narration,
          ])}
          numeric={[0, 3, withCurrency ? 5 : 4]}
          dim={answer.preview.map((l) => l.duplicate)}
        />
      )}
    </section>
  );
}

function MiniTable({
  title,
  head,
  rows,
  numeric = [],
  tone,
  note,
  dim,
}: {
  title: string;
  head: string[];
  rows: ReactNode[][];
  numeric?: number[];
  tone?: 'bad' | 'warn';
  note?: string;
  dim?: boolean[];
}) {
  return (
    <div className={`statement-table${tone ? ` ${tone}` : ''}`}>
      <h3>{title}</h3>
      {note && <p className="muted">{note}</p>}
      <div className="bulk-table-wrap">
        <table className="bulk-table">
          <thead>
            <tr>
              {head.map((h, i) => (
                <th key={h} className={numeric.includes(i) ? 'num' : undefined}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((cells, r) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the rows of one answer, never reordered
              <tr key={r} className={dim?.[r] ? 'skipped' : undefined}>
                {cells.map((c, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a row's cells by position
                  <td key={i} className={numeric.includes(i) ? 'num' : undefined}>
                    {c}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

const historyColumns: Column<Import>[] = [
  {
    id: 'createdAt',
    header: 'statement.import.columns.createdAt',
    value: (r) => r.createdAt,
    cell: (r) => <span className="dt-time">{formatTime(r.createdAt)}</span>,
    width: '160px',
    sortable: true,
  },
  {
    id: 'account',
    header: 'statement.screen.columns.account',
    value: (r) => r.accountLabel,
    width: 'minmax(150px, 1fr)',
  },
  {
    id: 'fileName',
    header: 'statement.import.columns.fileName',
    value: (r) => r.fileName,
    cell: (r) => <FileLink row={r} />,
    width: 'minmax(160px, 1.2fr)',
  },
  {
    id: 'mappingName',
    header: 'statement.import.columns.mappingName',
    // A saved mapping by name; else how the file was read (detected, a bank's feed format, an inline mapping).
    value: (r) =>
      r.mappingName ??
      (r.format === 'mt940' || r.format === 'camt053'
        ? t(`statement.import.formats.${r.format}`)
        : r.detected
          ? t('statement.import.detectedShort')
          : null),
    width: '130px',
  },
  {
    id: 'lines',
    header: 'statement.import.counts.lines',
    value: (r) => r.lineCount,
    cell: (r) =>
      r.status === 'running'
        ? `${thousands(r.processed)} / ${thousands(r.lineCount)}`
        : thousands(r.lineCount),
    width: '110px',
    sortable: true,
  },
  {
    id: 'source',
    header: 'statement.import.columns.source',
    value: (r) => r.source,
    cell: (r) => t(`statement.source.${r.source}`),
    width: '120px',
    hiddenByDefault: true,
  },
  {
    id: 'wouldPay',
    header: 'statement.import.columns.wouldPay',
    value: (r) => Number(r.wouldPay.sum),
    cell: (r) => (r.wouldPay.count ? `${thousands(r.wouldPay.count)} · ${thousands(r.wouldPay.sum)}` : '—'),
    width: '140px',
  },
  ...(['new', 'duplicates', 'matched', 'exceptions'] as const).map(
    (k): Column<Import> => ({
      id: k,
      header: `statement.import.counts.${k}`,
      value: (r) => r.counts[k],
      cell: (r) => thousands(r.counts[k]),
      width: '96px',
      sortable: true,
    }),
  ),
  {
    id: 'gaps',
    header: 'statement.import.columns.gaps',
    value: (r) => r.gaps.length,
    width: '80px',
    hiddenByDefault: true,
  },
  {
    id: 'createdBy',
    header: 'statement.import.columns.createdBy',
    value: (r) => r.createdBy,
    width: '110px',
    hiddenByDefault: true,
  },
];

/** The kept file, downloaded byte for byte (the row's `d` key does the same). */
function FileLink({ row }: { row: Import }) {
  return (
    <button type="button" className="link" tabIndex={-1} onClick={() => void saveImportFile(row)}>
      {row.fileName}
    </button>
  );
}
