import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useMemo, useRef, useState } from 'react';
import { endpoints, errno, type Input, type Output } from '../../../contract/index.ts';
import { ApiError, api, base64Of } from '../../lib/api.ts';
import { toast } from '../../lib/notify.ts';
import { type Translate, useT } from '../../lib/useT.ts';
import { draftOf, emptyDraft, type MappingDraft, mappingOf } from './MappingEditor.tsx';
import { useReceivingAccounts } from './parts.tsx';

type ImportInput = Input<typeof endpoints.statement.import>;
export type Answer = Output<typeof endpoints.statement.import>;
export type ImportInfo = Output<typeof endpoints.statement.importInfo>;
type RowError = Answer['errors'][number];
export type MappingRow = Output<typeof endpoints.statementMapping.list>['list'][number];
export type Errors = Record<string, string>;

/** A finished import as the result panel shows it and its Post action takes it. */
export interface Done {
  importId: number | null;
  counts: Answer['counts'];
  wouldPay: Answer['wouldPay'];
  fileName: string;
  accountLabel: string;
}

/** The mapping select's two ways that are no saved mapping: detect from the file (''), or write one. */
export const detectChoice = '';
export const writeChoice = 'write';

/** The counts of a preview or an import, in the order a person reads them. */
export const countKeys = [
  'lines',
  'new',
  'duplicates',
  'matched',
  'ready',
  'proposed',
  'exceptions',
] as const;

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
/** What the import calls show themselves: bad input and unreadable rows (the rest alerts as usual). */
const quietCodes = [errno.invalid, errno.statementRows, errno.payloadTooLarge];

/** A mapping choice as the select holds it: a saved one by id, a preset by key, or written here. */
export const choiceOf = (m: MappingRow) => (m.id === null ? `preset:${m.preset}` : `saved:${m.id}`);

/** The field a 422 names (`mapping.dateColumn` → `dateColumn`), for the messages next to the fields. */
function fieldsOf(error: ApiError): Errors {
  const list = (error.data as { fields?: { path: string; message: string }[] } | null)?.fields ?? [];
  const out: Errors = {};
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
 * How the statement is read: detected from the file, a saved mapping, a bank's preset, or written here
 * (and saved under a name, a bank's name too, for the list).
 */
export function useMappingChoice(setErrors: (errors: Errors) => void) {
  const t = useT();
  const mappings = useQuery({
    queryKey: ['statementMapping', 'list'],
    queryFn: ({ signal }) => api(endpoints.statementMapping.list, {}, { signal }),
  });
  const [choice, setChoice] = useState('');
  const [draft, setDraft] = useState<MappingDraft>(emptyDraft);
  const [edited, setEdited] = useState(false);
  const list = mappings.data?.list ?? [];
  const chosen = list.find((m) => choiceOf(m) === choice);
  /** Starts from a choice (or the mapping a preview detected): the editor shows it unedited. */
  const start = (value: string, mapping: MappingDraft) => {
    setChoice(value);
    setDraft(mapping);
    setEdited(false);
    setErrors({});
  };
  const choose = (value: string) => {
    const row = list.find((m) => choiceOf(m) === value);
    start(value, row ? draftOf(row.mapping) : emptyDraft);
  };
  const editDraft = (next: MappingDraft) => {
    setDraft(next);
    setEdited(true);
    setErrors({});
  };
  const takeDetected = (mapping: NonNullable<Answer['mapping']>) => start(writeChoice, draftOf(mapping));

  const [saving, setSaving] = useState(false);
  /** Saves the mapping as written; true when saved. */
  const saveMapping = async (name: string, bankName: string) => {
    setSaving(true);
    try {
      const saved = await api(
        endpoints.statementMapping.save,
        { name, bankName: (bankName || chosen?.bankName || '').trim(), mapping: mappingOf(draft) },
        { quiet: [errno.invalid, errno.conflict] },
      );
      toast('success', t('statement.import.mappingSaved', { name }));
      await mappings.refetch();
      setChoice(`saved:${saved.id}`);
      setEdited(false);
      return true;
    } catch (error) {
      // A name taken by another mapping is said next to the name.
      if (error instanceof ApiError && error.errno === errno.conflict) setErrors({ name: error.message });
      else if (error instanceof ApiError && error.errno === errno.invalid) setErrors(fieldsOf(error));
      else if (!(error instanceof ApiError)) throw error;
      return false;
    } finally {
      setSaving(false);
    }
  };

  return {
    choice,
    draft,
    edited,
    chosen,
    saved: list.filter((m) => m.id !== null),
    presets: list.filter((m) => m.id === null),
    choose,
    editDraft,
    takeDetected,
    saving,
    saveMapping,
  };
}
export type MappingChoice = ReturnType<typeof useMappingChoice>;

interface Source {
  accountId: string;
  mapping: MappingChoice;
  file: File | null;
  text: string;
  setErrors: (errors: Errors) => void;
}

/** The calls' input: the account, how to read the statement and the statement; null when something is missing. */
async function importInput(
  { accountId, mapping, file, text, setErrors }: Source,
  t: Translate,
): Promise<ImportInput | null> {
  const { choice, edited, chosen, draft } = mapping;
  const wanted: Errors = {};
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
}

/**
 * The preview and the import of a statement: the question both send, what the server refused and
 * where it is said, and a large import's progress followed by its key once the call stops waiting.
 */
export function useImportRun({ accountId, mapping, file, text, setErrors }: Source) {
  const t = useT();
  const queryClient = useQueryClient();
  const accounts = useReceivingAccounts();
  const { choice, edited, chosen, draft } = mapping;
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState<'preview' | 'import' | null>(null);
  const [preview, setPreview] = useState<{ question: string; answer: Answer } | null>(null);
  const [done, setDone] = useState<Done | null>(null);
  const [importKey, setImportKey] = useState<string | null>(null);
  /** The importer chose to import the readable lines of a file with row errors. */
  const [skipRowErrors, setSkipRowErrors] = useState(false);
  // Set when the call stopped waiting for a large import (the console's calls give up after 20 s) while
  // the server goes on: the import's progress then says when it is done.
  const [following, setFollowing] = useState(false);

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

  const inputOf = () => importInput({ accountId, mapping, file, text, setErrors }, t);

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

  const runPreview = async (e?: FormEvent) => {
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
    setDone(row);
    setPreview(null);
    setBusy(null);
    setImportKey(null);
    setFollowing(false);
    toast('success', t('statement.import.imported', { n: row.counts.new }));
    void queryClient.invalidateQueries();
  };
  /** The call ended without an import: nothing runs any more. */
  const stop = () => {
    setBusy(null);
    setImportKey(null);
  };

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
      stop();
    }
  };

  const running = useImportProgress(importKey, following, finish, () => {
    setFollowing(false);
    stop();
    setProblem(t('statement.import.lost'));
  });

  const rowErrors = fresh?.errors.length ?? 0;
  return {
    problem,
    busy,
    preview,
    fresh,
    done,
    running,
    skipRowErrors,
    setSkipRowErrors,
    rowErrors,
    canImport: !!fresh && (rowErrors === 0 || skipRowErrors) && fresh.counts.lines > 0 && busy === null,
    runPreview,
    runImport,
  };
}

/** A running import's progress by its key; once followed (the call gave up waiting), its end or its loss. */
function useImportProgress(
  importKey: string | null,
  following: boolean,
  finish: (row: Done) => void,
  lostIt: () => void,
) {
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
  const onLost = useRef(lostIt);
  onLost.current = lostIt;
  useEffect(() => {
    if (lost) onLost.current();
  }, [lost]);
  return importKey !== null ? progress.data : undefined;
}
