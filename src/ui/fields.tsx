import type { ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react';
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

interface SelectFieldProps extends Labelled, Omit<SelectHTMLAttributes<HTMLSelectElement>, 'onChange'> {
  value: string;
  onValue: (value: string) => void;
  options: { value: string; label: string }[];
}

/** A labelled select with its error under it, like `Field`. */
export function SelectField({ label, error, hint, value, onValue, options, ...rest }: SelectFieldProps) {
  const id = useId();
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(e) => onValue(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        {...rest}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <Message id={id} error={error} hint={hint} />
    </div>
  );
}

interface TextAreaFieldProps extends Labelled, Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'onChange'> {
  value: string;
  onValue: (value: string) => void;
}

/** A labelled text area with its error under it, like `Field`. */
export function TextAreaField({ label, error, hint, value, onValue, ...rest }: TextAreaFieldProps) {
  const id = useId();
  return (
    <div className={`field${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        value={value}
        onChange={(e) => onValue(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        {...rest}
      />
      <Message id={id} error={error} hint={hint} />
    </div>
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

/** A titled group of fields laid out in as many columns as fit. */
export function FieldGroup({ title, children }: { title: string; children: ReactNode }) {
  return (
    <fieldset className="field-group">
      <legend>{title}</legend>
      <div className="field-grid">{children}</div>
    </fieldset>
  );
}
