import type { ReactNode, Ref, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react';
import { useId } from 'react';
import './fields.css';

interface Labelled {
  label: string;
  error?: string | undefined;
  hint?: ReactNode;
}

function Message({ id, error, hint }: { id: string; error?: string | undefined; hint?: ReactNode }) {
  if (error)
    return (
      <p id={`${id}-error`} className="field-error" role="alert">
        {error}
      </p>
    );
  return hint ? <p className="field-hint">{hint}</p> : null;
}

/** What a control inside `FieldFrame` carries: its id, and its error tied to it. */
interface ControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

/** A field's frame: its label, the control, and its error (or else its hint) under it. */
export function FieldFrame({
  label,
  error,
  hint,
  children,
}: Labelled & { children: (control: ControlProps) => ReactNode }) {
  const id = useId();
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': error ? `${id}-error` : undefined,
      })}
      <Message id={id} error={error} hint={hint} />
    </div>
  );
}

interface SelectFieldProps extends Labelled, Omit<SelectHTMLAttributes<HTMLSelectElement>, 'onChange'> {
  value: string;
  onValue: (value: string) => void;
  options: { value: string; label: string }[];
}

/** A select's options for rows to choose from: `none` first (nothing chosen yet), then each row by its id. */
export function rowOptions<R extends { id: number }>(
  none: string,
  rows: readonly R[] | undefined,
  label: (row: R) => string,
): { value: string; label: string }[] {
  return [{ value: '', label: none }, ...(rows ?? []).map((r) => ({ value: String(r.id), label: label(r) }))];
}

/** A select's options for a fixed set of values (states, kinds, directions), each with its name. */
export function valueOptions<V extends string>(
  values: readonly V[],
  label: (value: V) => string,
): { value: V; label: string }[] {
  return values.map((value) => ({ value, label: label(value) }));
}

/** A labelled select with its error under it, like `Field`. */
export function SelectField({ label, error, hint, value, onValue, options, ...rest }: SelectFieldProps) {
  return (
    <FieldFrame label={label} error={error} hint={hint}>
      {(control) => (
        <select {...control} value={value} onChange={(e) => onValue(e.target.value)} {...rest}>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </FieldFrame>
  );
}

interface TextAreaFieldProps extends Labelled, Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'onChange'> {
  value: string;
  onValue: (value: string) => void;
  /** Handed to the text area (React 19 passes it with the rest). */
  ref?: Ref<HTMLTextAreaElement>;
}

/** A labelled text area with its error under it, like `Field`. */
export function TextAreaField({ label, error, hint, value, onValue, ...rest }: TextAreaFieldProps) {
  return (
    <FieldFrame label={label} error={error} hint={hint}>
      {(control) => (
        <textarea {...control} value={value} onChange={(e) => onValue(e.target.value)} {...rest} />
      )}
    </FieldFrame>
  );
}

interface FileFieldProps extends Labelled {
  /** The MIME types offered by the picker. */
  accept: readonly string[];
  multiple?: boolean;
  onFiles: (files: FileList | null) => void;
}

/** A labelled file picker with its error, or else its hint, under it (always described by one of them). */
export function FileField({ label, error, hint, accept, multiple, onFiles }: FileFieldProps) {
  const id = useId();
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="file"
        multiple={multiple}
        accept={accept.join(',')}
        onChange={(e) => onFiles(e.target.files)}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-msg`}
      />
      {error ? (
        <p id={`${id}-msg`} className="field-error" role="alert">
          {error}
        </p>
      ) : (
        <p id={`${id}-msg`} className="field-hint">
          {hint}
        </p>
      )}
    </div>
  );
}

/** A choice ticked on or off, its label beside the box. */
export function CheckField({
  label,
  checked,
  onChecked,
  disabled,
}: {
  label: ReactNode;
  checked: boolean;
  onChecked: (on: boolean) => void;
  disabled?: boolean;
}) {
  return (
    <label className="check">
      <input
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChecked(e.target.checked)}
      />
      {label}
    </label>
  );
}

/** A titled group of fields laid out in as many columns as fit. */
export function FieldGroup({ title, children }: { title: string; children: ReactNode }) {
  return (
    <fieldset className="field-group">
      <legend>{title}</legend>
      <div className="field-grid">{children}</div>
    </fieldset>
  );
}
