import { useId, useMemo, useState } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { fromWire, invalidMessage, isParameterKey } from '../../../contract/parameters.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { TextAreaField } from '../../ui/fields.tsx';
import { CodeAndActions, Field, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { inputText, shownValue, wireValue } from './value.ts';

type Parameter = Contexts['parameter'];

/** The zones the browser knows, for the time zone's suggestions (the server checks its own list). */
const zones = (): string[] => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
};

/**
 * Changes one parameter: the input its kind takes (a switch, minutes, a list of seconds, a time zone,
 * HH:MM, an amount, a text), checked here by the same declaration the server checks, then confirmed with
 * the user's Google code. The change is logged with its value before and after.
 */
export default function ParameterDialog({
  parameter,
  close,
}: {
  parameter: Parameter;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  // The first field, also when opened over a row's drawer (autoFocus loses to the drawer's focus trap).
  const formRef = useOpeningFocus();
  const { key, kind } = parameter;
  const form = useForm({ text: inputText(kind, parameter.value), code: '' });
  const [on, setOn] = useState(parameter.value === true);
  const { unbound, call } = useCodeConfirmed(form);
  const listId = useId();
  const zoneList = useMemo(() => (kind === 'timeZone' ? zones() : []), [kind]);
  const label = t(`parameters.${key}.label`);
  const fillDefault = () => {
    if (kind === 'switch') setOn(parameter.default === true);
    else form.set('text', inputText(kind, parameter.default));
  };

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const value = wireValue(kind, form.values.text, on);
    const code = form.values.code.trim();
    const errors: Record<string, string> = {};
    if (isParameterKey(key) && fromWire(key, value) === undefined) errors.text = t(...invalidMessage(key));
    if (!/^\d{6}$/.test(code)) errors.code = t('validation.code6');
    if (Object.keys(errors).length) return form.setErrors(errors);
    void form.submit(async () => {
      try {
        const saved = await call(endpoints.parameter.update, { key, value, code });
        if (!saved) return;
        const shown = shownValue(kind, saved.value);
        // A long text is said in part: the list shows it whole.
        const said = shown.length > 60 ? `${shown.slice(0, 59)}…` : shown;
        toast('success', t('screens.parameter.saved', { name: label, value: said }));
        close(true);
      } catch (error) {
        // The server's refusal of the value lands at the input (its field is `value`).
        const fields = (error as { fields?: Record<string, string> }).fields;
        if (fields?.value) form.setErrors({ text: fields.value });
        else throw error;
      }
    });
  };

  const field = () => {
    const common = { label, error: form.errors.text, value: form.values.text };
    switch (kind) {
      case 'switch':
        return (
          <label className="check">
            <input
              type="checkbox"
              role="switch"
              aria-checked={on}
              checked={on}
              onChange={(e) => setOn(e.target.checked)}
            />
            {label}
          </label>
        );
      case 'text':
        return (
          <TextAreaField
            {...common}
            rows={4}
            maxLength={500}
            onValue={(v) => form.set('text', v)}
            hint={t('parameters.hints.text')}
          />
        );
      case 'timeZone':
        return (
          <>
            <Field
              {...common}
              list={listId}
              autoComplete="off"
              spellCheck={false}
              onValue={(v) => form.set('text', v)}
              hint={t('parameters.hints.timeZone')}
            />
            <datalist id={listId}>
              {zoneList.map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
          </>
        );
      case 'time':
        return (
          <Field
            {...common}
            type="time"
            onValue={(v) => form.set('text', v)}
            hint={t('parameters.hints.time')}
          />
        );
      default:
        return (
          <Field
            {...common}
            inputMode={kind === 'seconds' ? 'text' : kind === 'money' ? 'decimal' : 'numeric'}
            autoComplete="off"
            onValue={(v) => form.set('text', v)}
            hint={t(`parameters.hints.${kind}`)}
          />
        );
    }
  };

  return (
    <Modal title={label} description={t(`parameters.${key}.description`)} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        {unbound && <UnboundNotice close={() => close()} />}
        {field()}
        <p className="field-hint">
          {t('screens.parameter.defaultIs', { value: shownValue(kind, parameter.default) })}{' '}
          <button type="button" className="link" onClick={fillDefault}>
            {t('screens.parameter.useDefault')}
          </button>
        </p>
        <CodeAndActions form={form} onCancel={() => close()} submitLabel={t('app.save')} />
      </form>
    </Modal>
  );
}
