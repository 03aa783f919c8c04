import type { InputHTMLAttributes, ReactNode, Ref } from 'react';
import { useState } from 'react';
import type * as z from 'zod/mini';
import type { Endpoint, Input, Output } from '../../contract/endpoint.ts';
import { errno } from '../../contract/errno.ts';
import { ApiError, api } from '../lib/api.ts';
import { formatClock } from '../lib/format.ts';
import { t } from '../lib/i18n.ts';
import { takesMoneySession, useMoneySessionEnd, withMoneySession } from '../lib/moneySession.ts';
import { toast } from '../lib/notify.ts';
import { useT } from '../lib/useT.ts';
import { FieldFrame } from './fields.tsx';

type Issue = {
  path: PropertyKey[];
  message: string;
  code?: string;
  minimum?: unknown;
  maximum?: unknown;
  origin?: string;
};

/** Turns a schema issue into text: contract messages are `validation.*` keys, the rest maps by code. */
export function issueText(issue: Issue): string {
  if (issue.message.startsWith('validation.')) return t(issue.message);
  switch (issue.code) {
    case 'too_small':
      return issue.origin === 'string'
        ? Number(issue.minimum) <= 1
          ? t('validation.required')
          : t('validation.tooShort', { min: issue.minimum })
        : t('validation.tooSmall', { min: issue.minimum });
    case 'too_big':
      return issue.origin === 'string'
        ? t('validation.tooLong', { max: issue.maximum })
        : t('validation.tooBig', { max: issue.maximum });
    case 'invalid_type':
      return t('validation.required');
    default:
      return t('validation.invalid');
  }
}

/** Validates `values` with a contract schema; answers field messages keyed by the first path segment. */
export function validate<S extends z.ZodMiniType>(
  schema: S,
  values: unknown,
): { ok: true; data: z.output<S> } | { ok: false; errors: Record<string, string> } {
  const result = schema.safeParse(values);
  if (result.success) return { ok: true, data: result.data as z.output<S> };
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues as unknown as Issue[]) {
    const key = String(issue.path[0] ?? '');
    errors[key] ??= issueText(issue);
  }
  return { ok: false, errors };
}

/** Small form state: values, field errors (client or server 422), and a busy flag. */
export function useForm<V extends Record<string, unknown>>(initial: V) {
  const [values, setValues] = useState<V>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof V>(key: K, value: V[K]) => {
    setValues((v) => ({ ...v, [key]: value }));
    setErrors((e) => {
      if (!(key in e)) return e;
      const { [key as string]: _, ...rest } = e;
      return rest;
    });
  };
  /** Runs a submit; a 422 answer's field errors land next to their fields. */
  const submit = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch (error) {
      if (error instanceof ApiError) {
        const fields = error.fields;
        if (Object.keys(fields).length) setErrors(fields);
      } else {
        throw error;
      }
    } finally {
      setBusy(false);
    }
  };
  /**
   * Submits to one endpoint, named once: `input` is checked against the endpoint's declared input (what
   * fails lands at its field), then sent; a 422's refused fields land at theirs, and the answer goes to
   * `done`.
   */
  const send = <E extends Endpoint>(
    endpoint: E,
    input: Input<E>,
    done: (answer: Output<E>) => void | Promise<void>,
    options: SendOptions<E> = {},
  ) => {
    // A queue door's blank code is the money session's while it is open.
    input = withMoneySession(endpoint, input);
    const checked = validate(endpoint.input, input);
    if (!checked.ok) {
      const errors = options.blankIsMissing
        ? missingFirst(checked.errors, input as Record<string, unknown>)
        : checked.errors;
      return setErrors(options.explain?.(errors) ?? errors);
    }
    const refused = options.check?.(input);
    if (refused) return setErrors(refused);
    void submit(async () => {
      const quiet = [errno.invalid, ...(options.quiet ?? [])];
      if (!options.via) return await done(await api(endpoint, input, { quiet }));
      const answer = await options.via(endpoint, input);
      if (answer !== undefined) await done(answer);
    });
  };
  /** A field's value, setter and error, spread onto its input: `<Field label=… {...form.field('name')} />`. */
  const field = <K extends keyof V & string>(key: K) => ({
    value: values[key],
    onValue: (value: V[K]) => set(key, value),
    error: errors[key],
  });
  return { values, set, errors, setErrors, busy, submit, send, field };
}

/**
 * The end of an action that says what it did: `said` of its answer told as a success, and the dialog
 * closed with a result, so that its list reads again.
 */
export const toldThenClose =
  <A,>(close: (result?: unknown) => void, said: (answer: A) => string) =>
  (answer: A) => {
    toast('success', said(answer));
    close(true);
  };

/** The end of a plain save: "Saved" said, and the dialog closed with a result, so that its list reads again. */
export const savedThenClose = (close: (result?: unknown) => void) => () => {
  toast('success', t('app.saved'));
  close(true);
};

/** How `send` checks and calls beyond the endpoint's own schema. */
export interface SendOptions<E extends Endpoint> {
  /** The spec's "required" for an empty field, whatever format rule the schema reports for it. */
  blankIsMissing?: boolean;
  /** The schema's failures in the form's own words (a union's generic issue said as what a value looks like). */
  explain?: (errors: Record<string, string>) => Record<string, string>;
  /** A rule the schema cannot know (an amount at most what was applied for): field errors, or nothing. */
  check?: (input: Input<E>) => Record<string, string> | undefined;
  /** Refusals beyond 422 whose fields land at the form's (a binding that overlaps another: 409). */
  quiet?: readonly number[];
  /**
   * The call instead of `api` (a code-confirmed one, `useCodeConfirmed().call`): answers undefined when
   * it has shown its refusal itself, and the form stays open.
   */
  via?: (endpoint: E, input: Input<E>) => Promise<Output<E> | undefined>;
}

/** What `useForm` answers, for parts that take a form. */
export type Form<V extends Record<string, unknown>> = ReturnType<typeof useForm<V>>;

interface FieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> {
  label: string;
  value: string;
  onValue: (value: string) => void;
  error?: string | undefined;
  hint?: ReactNode;
  ref?: Ref<HTMLInputElement>;
}

/** A labelled input with its error under it, tied by aria-describedby. */
export function Field({ label, value, onValue, error, hint, ref, ...rest }: FieldProps) {
  return (
    <FieldFrame label={label} error={error} hint={hint}>
      {(control) => (
        <input ref={ref} {...control} value={value} onChange={(e) => onValue(e.target.value)} {...rest} />
      )}
    </FieldFrame>
  );
}

/**
 * The spec's message for a field left empty ("some information is not filled"), in place of whatever
 * format rule the schema reports for an empty string (an empty amount is missing, not malformed).
 */
export function missingFirst(
  errors: Record<string, string>,
  values: Record<string, unknown>,
): Record<string, string> {
  const out = { ...errors };
  for (const key of Object.keys(out)) {
    const value = values[key];
    if (typeof value === 'string' && value.trim() === '') out[key] = t('validation.required');
  }
  return out;
}

/**
 * A kind of field: `Field` with the input attributes every field of that kind carries, said once here so
 * that a form says only its label, value and hint. The form's own props come last and win
 * (`required={false}` for an optional one).
 */
function fieldKind(attributes: Partial<FieldProps>) {
  return (props: FieldProps) => <Field {...attributes} {...props} />;
}

/** An amount or a rate: the decimal keypad, and no figure the browser remembers offered. */
export const DecimalField = fieldKind({ inputMode: 'decimal', autoComplete: 'off' });

/** Why a person did what they did, kept with it and in the log (the contract's `actionReason`). */
export const ReasonField = fieldKind({ maxLength: 200, autoComplete: 'off', required: true });

/** A note kept with a money movement (a recharge, a commission paid): at most 300 characters, optional. */
export const NoteField = fieldKind({ maxLength: 300, autoComplete: 'off' });

/** A value copied exactly as issued (a UTR, an IFSC, a host): no suggestions, no spelling marks. */
export const VerbatimField = fieldKind({ autoComplete: 'off', spellCheck: false });

/** The password in use, for the password manager to fill. */
export const CurrentPasswordField = fieldKind({
  type: 'password',
  autoComplete: 'current-password',
  required: true,
});

/** A password being set, for the password manager to offer and then keep. */
export const NewPasswordField = fieldKind({ type: 'password', autoComplete: 'new-password', required: true });

/** A six-digit code from the authenticator app or an e-mail, offered by the device as a one-time code. */
export const OneTimeCodeField = fieldKind({
  inputMode: 'numeric',
  autoComplete: 'one-time-code',
  maxLength: 6,
  required: true,
});

/** What a one-time code field keeps of what is typed or pasted: its digits, six at the most. */
export const codeDigits = (typed: string) => typed.replace(/\D/g, '').slice(0, 6);

/**
 * The Google code a money action is confirmed with: six digits, offered by the authenticator app. At a
 * queue door (`endpoint` takes the money session) while the money session is open, it may stay empty.
 */
export function GoogleCodeField({
  endpoint,
  ...props
}: Omit<FieldProps, 'label'> & { label?: string; endpoint?: Endpoint | undefined }) {
  const t = useT();
  const end = useMoneySessionEnd();
  const until = endpoint && takesMoneySession(endpoint) ? end : null;
  const open = until !== null;
  return (
    <OneTimeCodeField
      label={props.label ?? t('screens.order.googleCode')}
      required={!open}
      placeholder={open ? t('moneySession.leaveEmpty') : undefined}
      hint={open ? t('moneySession.openUntil', { time: formatClock(until) }) : undefined}
      {...props}
    />
  );
}

/** An action's refusal (`errno: message`), said inside its dialog, which stays open for another try. */
export function RefusalNote({ refusal }: { refusal: string | null }) {
  return refusal ? (
    <p className="danger-note" role="alert">
      {refusal}
    </p>
  ) : null;
}

/**
 * The foot of a form that moves money or secrets: the acting user's Google code (form value `code`), then
 * Cancel and the confirming button, which names the action.
 */
export function CodeAndActions({
  form,
  onCancel,
  submitLabel,
  tone = 'primary',
  endpoint,
}: {
  form: {
    values: { code: string };
    errors: Record<string, string>;
    busy: boolean;
    set(key: 'code', value: string): void;
  };
  onCancel: () => void;
  submitLabel: string;
  tone?: 'primary' | 'danger';
  /** The door the code confirms: a queue door lets the money session stand in for the code. */
  endpoint?: Endpoint;
}) {
  return (
    <>
      <GoogleCodeField
        endpoint={endpoint}
        value={form.values.code}
        onValue={(v) => form.set('code', v)}
        error={form.errors.code}
      />
      <FormActions busy={form.busy} onCancel={onCancel} submitLabel={submitLabel} tone={tone} />
    </>
  );
}

/**
 * The foot of every form: Cancel (none on a page's form), then the submitting button (Save unless
 * named), off while it is sending.
 */
export function FormActions({
  busy,
  onCancel,
  submitLabel,
  tone = 'primary',
  disabled = false,
}: {
  busy: boolean;
  onCancel?: () => void;
  submitLabel?: string;
  tone?: 'primary' | 'danger';
  /** Off for a reason other than sending (no file chosen yet). */
  disabled?: boolean;
}) {
  const t = useT();
  return (
    <div className="form-actions">
      {onCancel && (
        <button type="button" className="button" onClick={onCancel}>
          {t('app.cancel')}
        </button>
      )}
      <button type="submit" className={`button ${tone}`} disabled={busy || disabled}>
        {submitLabel ?? t('app.save')}
      </button>
    </div>
  );
}
