import { useEffect, useId, useRef, useState } from 'react';
import { thousands } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { isTyping } from '../../shell/keyboard.ts';
import { FieldGroup, SelectField, TextAreaField } from '../../ui/fields.tsx';
import { Field } from '../../ui/form.tsx';
import { choiceOf, detectChoice, type Errors, type MappingChoice, writeChoice } from './importState.ts';
import { MappingEditor } from './MappingEditor.tsx';
import { useReceivingAccounts } from './parts.tsx';

/** The receiving account and how its statement is read (detected, saved, a preset, or written here). */
export function AccountAndMapping({
  accountId,
  setAccount,
  mapping,
  errors,
}: {
  accountId: string;
  setAccount: (value: string) => void;
  mapping: MappingChoice;
  errors: Errors;
}) {
  const t = useT();
  const fileId = useId();
  const accounts = useReceivingAccounts();
  const { saved, presets, chosen } = mapping;
  const accountOptions = [
    { value: '', label: t('statement.import.chooseAccount') },
    ...(accounts.data?.list ?? []).map((a) => ({
      value: String(a.id),
      label: `${a.bankName} · ${a.accountNumber} · ${a.accountName}`,
    })),
  ];
  return (
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
        <select
          id={`${fileId}-mapping`}
          value={mapping.choice}
          onChange={(e) => mapping.choose(e.target.value)}
        >
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
          {chosen && mapping.edited ? t('statement.import.mappingEdited') : t('statement.import.mappingHint')}
        </p>
      </div>
    </FieldGroup>
  );
}

/** The mapping as written, to correct and to save under a name (a bank's name too, for the list). */
export function MappingBox({ mapping, errors }: { mapping: MappingChoice; errors: Errors }) {
  const t = useT();
  const [saveName, setSaveName] = useState('');
  const [saveBank, setSaveBank] = useState('');
  const save = async () => {
    if (!(await mapping.saveMapping(saveName.trim(), saveBank))) return;
    setSaveName('');
    setSaveBank('');
  };
  return (
    <details
      className="statement-mapping-box"
      open={mapping.choice === writeChoice || mapping.edited || undefined}
    >
      <summary>{t('statement.import.editMapping')}</summary>
      <MappingEditor draft={mapping.draft} onDraft={mapping.editDraft} errors={errors} />
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
          placeholder={mapping.chosen?.bankName}
          maxLength={100}
          autoComplete="off"
        />
        <button
          type="button"
          className="button"
          disabled={mapping.saving || saveName.trim() === ''}
          onClick={() => void save()}
        >
          {t('statement.import.saveMapping')}
        </button>
      </div>
    </details>
  );
}

/** The statement itself: a file (CSV, XLSX, MT940, camt.053) or pasted text. */
export function StatementSource({
  file,
  setFile,
  text,
  setText,
  errors,
  clearErrors,
}: {
  file: File | null;
  setFile: (file: File | null) => void;
  text: string;
  setText: (text: string) => void;
  errors: Errors;
  /** A new file or text: the messages about the previous one go. */
  clearErrors: () => void;
}) {
  const t = useT();
  const fileId = useId();
  const fileInput = useRef<HTMLInputElement>(null);
  const pasteArea = useRef<HTMLTextAreaElement>(null);
  // A paste anywhere on the screen but into a field (Ctrl-V as the screen opens) is the statement: a
  // copied file is the file, copied text goes into the paste box, which takes the focus so that Ctrl-Enter
  // previews and Ctrl-Shift-Enter imports from there.
  const take = useRef({ setFile, setText, clearErrors });
  take.current = { setFile, setText, clearErrors };
  useEffect(() => {
    const onPaste = (e: ClipboardEvent) => {
      const { setFile, setText, clearErrors } = take.current;
      if (isTyping(e.target) || document.querySelector('[role="dialog"], [role="alertdialog"]')) return;
      const copied = e.clipboardData?.files?.[0];
      const pasted = e.clipboardData?.getData('text') ?? '';
      if (!copied && !pasted.trim()) return;
      e.preventDefault();
      if (copied) setFile(copied);
      else setText(pasted);
      clearErrors();
      window.setTimeout(() => (copied ? fileInput.current : pasteArea.current)?.focus(), 0);
    };
    document.addEventListener('paste', onPaste);
    return () => document.removeEventListener('paste', onPaste);
  }, []);
  return (
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
              clearErrors();
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
          ref={pasteArea}
          label={t('statement.import.paste')}
          value={text}
          onValue={(v) => {
            setText(v);
            clearErrors();
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
  );
}
