import { useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { keyCaps } from '../../shell/keys.ts';
import { DataTable } from '../../ui/DataTable.tsx';
import { Page } from '../Page.tsx';
import { Preview } from './ImportPreview.tsx';
import { ImportDone, ImportProgress } from './ImportResult.tsx';
import { AccountAndMapping, MappingBox, StatementSource } from './ImportSource.tsx';
import { historyColumns } from './importHistory.tsx';
import { type Errors, useImportRun, useMappingChoice } from './importState.ts';
import './statement.css';

/** The receiving account chosen, kept in the URL (the imports below are that account's). */
function useAccountParam() {
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
  return [accountId, setAccount] as const;
}

/**
 * Imports a receiving account's bank statement: the account, a mapping (a saved one, a bank's preset,
 * or written here and saved under a name), a file (CSV or XLSX) or pasted text. Preview reads the
 * statement without writing anything: counts, the rows that cannot be read, balance gaps and the first
 * lines; Import (only once the preview has no row errors) saves and matches, its progress followed by
 * a key while the request runs. Below, the imports so far, each with its kept file.
 */
export default function ImportScreen() {
  const t = useT();
  const [accountId, setAccount] = useAccountParam();
  const [errors, setErrors] = useState<Errors>({});
  const mapping = useMappingChoice(setErrors);
  const [file, setFile] = useState<File | null>(null);
  const [text, setText] = useState('');
  const run = useImportRun({ accountId, mapping, file, text, setErrors });
  const { preview, done, fresh } = run;

  return (
    <Page
      title={t('commands.statement.import.title')}
      actions={
        <Link href="/receiving/exceptions" className="button">
          {t('commands.statement.exceptions.title')}
        </Link>
      }
    >
      <form
        className="form statement-import"
        onSubmit={run.runPreview}
        // Ctrl-Enter previews from any field (the paste area too); Ctrl-Shift-Enter imports the preview.
        onKeyDown={(e) => {
          if (e.key !== 'Enter' || !(e.ctrlKey || e.metaKey)) return;
          e.preventDefault();
          if (!e.shiftKey) void run.runPreview();
          else if (run.canImport) void run.runImport();
        }}
        noValidate
      >
        <AccountAndMapping accountId={accountId} setAccount={setAccount} mapping={mapping} errors={errors} />
        <MappingBox mapping={mapping} errors={errors} />
        <StatementSource
          file={file}
          setFile={setFile}
          text={text}
          setText={setText}
          errors={errors}
          clearErrors={() => setErrors({})}
        />
        {run.problem && (
          <p className="danger-note" role="alert">
            {run.problem}
          </p>
        )}
        <div className="form-actions statement-actions">
          {run.busy === 'import' ? (
            <ImportProgress row={run.running} />
          ) : (
            <span className="muted statement-keys-hint">
              {t('statement.import.keys', {
                paste: keyCaps('mod+v').join('-'),
                preview: keyCaps('mod+Enter').join('-'),
                import: keyCaps('mod+Shift+Enter').join('-'),
              })}
            </span>
          )}
          <button type="submit" className="button" disabled={run.busy !== null}>
            {t('statement.import.preview')}
          </button>
          <button
            type="button"
            className="button primary"
            disabled={!run.canImport}
            title={fresh && run.rowErrors > 0 ? t('statement.import.fixRowsFirst') : undefined}
            onClick={() => void run.runImport()}
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
          onUseMapping={mapping.takeDetected}
          bankName={(id) => mapping.presets.find((m) => m.preset === id)?.bankName ?? id}
          skipRowErrors={run.skipRowErrors}
          onSkipRowErrors={run.setSkipRowErrors}
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
        detailTitle={(r) => r.fileName}
      />
    </Page>
  );
}
