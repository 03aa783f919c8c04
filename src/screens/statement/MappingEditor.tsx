import type { StatementMapping } from '../../../contract/statementMapping.ts';
import { useT } from '../../lib/useT.ts';
import { Field } from '../../ui/form.tsx';

/** A mapping as the editor holds it: every field as typed (blank for an unused column). */
export interface MappingDraft {
  headerRow: string;
  dateColumn: string;
  dateFormat: string;
  narrationColumn: string;
  referenceColumn: string;
  /** Two amount columns (credit and/or debit) or one signed amount column. */
  amounts: 'split' | 'signed';
  creditColumn: string;
  debitColumn: string;
  amountColumn: string;
  /** With one amount column: the column saying Dr or Cr (blank: the amount's sign says it). */
  directionColumn: string;
  balanceColumn: string;
  utrPattern: string;
}

/** Header row and date form blank: the server finds them in the file. */
export const emptyDraft: MappingDraft = {
  headerRow: '',
  dateColumn: '',
  dateFormat: '',
  narrationColumn: '',
  referenceColumn: '',
  amounts: 'split',
  creditColumn: '',
  debitColumn: '',
  amountColumn: '',
  directionColumn: '',
  balanceColumn: '',
  utrPattern: '',
};

export function draftOf(m: StatementMapping): MappingDraft {
  return {
    headerRow: m.headerRow === undefined ? '' : String(m.headerRow),
    dateColumn: m.dateColumn,
    dateFormat: m.dateFormat ?? '',
    narrationColumn: m.narrationColumn,
    referenceColumn: m.referenceColumn ?? '',
    amounts: m.amountColumn ? 'signed' : 'split',
    creditColumn: m.creditColumn ?? '',
    debitColumn: m.debitColumn ?? '',
    amountColumn: m.amountColumn ?? '',
    directionColumn: m.directionColumn ?? '',
    balanceColumn: m.balanceColumn ?? '',
    utrPattern: m.utrPattern ?? '',
  };
}

const given = (v: string) => (v.trim() === '' ? undefined : v.trim());

/** The draft as the contract's mapping (the unused amount way left out); the server checks it again. */
export function mappingOf(d: MappingDraft): StatementMapping {
  const out: Record<string, unknown> = {
    headerRow: d.headerRow.trim() === '' ? undefined : Number(d.headerRow),
    dateColumn: d.dateColumn.trim(),
    dateFormat: given(d.dateFormat),
    narrationColumn: d.narrationColumn.trim(),
    referenceColumn: given(d.referenceColumn),
    balanceColumn: given(d.balanceColumn),
    utrPattern: d.utrPattern === '' ? undefined : d.utrPattern,
    ...(d.amounts === 'signed'
      ? { amountColumn: given(d.amountColumn), directionColumn: given(d.directionColumn) }
      : { creditColumn: given(d.creditColumn), debitColumn: given(d.debitColumn) }),
  };
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out as StatementMapping;
}

type Text = Exclude<keyof MappingDraft, 'amounts'>;

/**
 * The fields of a mapping: the header row, the date and its format, the columns by the names the
 * header row gives them, and the pattern pulling the UTR out of the narration.
 */
export function MappingEditor({
  draft,
  onDraft,
  errors,
}: {
  draft: MappingDraft;
  onDraft: (draft: MappingDraft) => void;
  errors: Record<string, string>;
}) {
  const t = useT();
  const text = (key: Text, extra: { hint?: string; inputMode?: 'numeric'; mono?: boolean } = {}) => (
    <Field
      label={t(`statement.import.mapping.${key}`)}
      value={draft[key]}
      onValue={(v) => onDraft({ ...draft, [key]: v })}
      error={errors[key]}
      hint={extra.hint}
      inputMode={extra.inputMode}
      className={extra.mono ? 'mono' : undefined}
      autoComplete="off"
      spellCheck={false}
    />
  );
  return (
    <div className="field-grid statement-mapping">
      {text('headerRow', { inputMode: 'numeric', hint: t('statement.import.mapping.headerRowHint') })}
      {text('dateColumn')}
      {text('dateFormat', { hint: t('statement.import.mapping.dateFormatHint'), mono: true })}
      {text('narrationColumn')}
      {text('referenceColumn')}
      {text('balanceColumn')}
      <fieldset className="statement-amounts field-wide">
        <legend>{t('statement.import.mapping.amounts')}</legend>
        <div className="checks">
          {(['split', 'signed'] as const).map((way) => (
            <label key={way} className="check">
              <input
                type="radio"
                name="statement-amounts"
                checked={draft.amounts === way}
                onChange={() => onDraft({ ...draft, amounts: way })}
              />
              {t(`statement.import.mapping.amountWays.${way}`)}
            </label>
          ))}
        </div>
        {errors.amountColumn && (
          <p className="field-error" role="alert">
            {errors.amountColumn}
          </p>
        )}
      </fieldset>
      {draft.amounts === 'split' ? (
        <>
          {text('creditColumn')}
          {text('debitColumn')}
        </>
      ) : (
        <>
          {text('amountColumn')}
          {text('directionColumn', { hint: t('statement.import.mapping.directionColumnHint') })}
        </>
      )}
      <div className="field-wide">
        {text('utrPattern', { hint: t('statement.import.mapping.utrPatternHint'), mono: true })}
      </div>
    </div>
  );
}
