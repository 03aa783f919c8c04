import { useState } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints, type Input } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { CheckField, FieldGroup, SelectField, valueOptions } from '../../ui/fields.tsx';
import { DecimalField, Field, FormActions } from '../../ui/form.tsx';
import { errorAt, type PathErrors, sendWithPaths } from '../../ui/formPaths.ts';
import { Icon } from '../../ui/Icon.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { simulatorSettingsOf } from './settings.ts';
import './channel.css';

interface Props {
  channel?: Contexts['channel'];
  close: (result?: unknown) => void;
}

const adapters = endpoints.channel.create.input.shape.adapter.options;
const defaults = { minAmount: '1.00', maxAmount: '10000000.00', weight: '100' };

interface Credential {
  key: string;
  value: string;
}

/** A number typed into a field; blank or malformed text stays text so the schema names the field. */
const numberOr = (s: string): number | string =>
  s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s;

/**
 * Creates or edits a channel. Credentials are write-only: the server never answers them, so an edit
 * starts empty and only what is typed replaces the stored set (or the stored set is removed).
 */
export default function ChannelForm({ channel, close }: Props) {
  const t = useT();
  const editing = channel !== undefined;
  const sim = simulatorSettingsOf(channel?.settings ?? {});
  const [values, setValues] = useState({
    code: '',
    adapter: channel?.adapter ?? adapters[0] ?? '',
    name: channel?.name ?? '',
    status: channel?.status ?? 'active',
    supportsPayin: channel?.supportsPayin ?? true,
    supportsPayout: channel?.supportsPayout ?? true,
    payinCostRate: channel?.payinCostRate ?? '0',
    payoutCostRate: channel?.payoutCostRate ?? '0',
    payoutCostFixed: channel?.payoutCostFixed ?? '0.00',
    minAmount: channel?.minAmount ?? defaults.minAmount,
    maxAmount: channel?.maxAmount ?? defaults.maxAmount,
    weight: String(channel?.weight ?? defaults.weight),
    auto: sim.auto,
    successRate: String(sim.successRate),
    delayMs: String(sim.delayMs),
    lostCallbackRate: String(sim.lostCallbackRate),
  });
  const [credentials, setCredentials] = useState<Credential[]>([{ key: '', value: '' }]);
  const [clearCredentials, setClearCredentials] = useState(false);
  const [errors, setErrors] = useState<PathErrors>({});
  const [busy, setBusy] = useState(false);

  type Key = keyof typeof values;
  const set =
    <K extends Key>(key: K) =>
    (value: (typeof values)[K]) => {
      setValues((v) => ({ ...v, [key]: value }));
      setErrors((e) =>
        Object.fromEntries(Object.entries(e).filter(([k]) => k !== key && k !== `settings.${key}`)),
      );
    };
  const isSimulator = values.adapter === 'simulator';
  // A manual bank channel sends payouts on withdrawal slips: it never takes a pay-in.
  const isManualBank = values.adapter === 'manual_bank';
  const setAdapter = (adapter: string) => {
    set('adapter')(adapter);
    if (adapter === 'manual_bank') set('supportsPayin')(false);
    if (adapter === 'bank') set('supportsPayout')(false);
  };

  const onSubmit = async (e: React.FormEvent) => {
    e.preventDefault();
    const typed = credentials.filter((c) => c.key.trim() !== '' || c.value !== '');
    const credentialErrors: PathErrors = {};
    const keys = new Set<string>();
    typed.forEach((c, i) => {
      const key = c.key.trim();
      if (!key || !c.value) credentialErrors[`credentials.${i}`] = t('validation.required');
      else if (keys.has(key)) credentialErrors[`credentials.${i}`] = t('validation.duplicate');
      keys.add(key);
    });
    const fields = {
      name: values.name,
      status: values.status,
      supportsPayin: isManualBank ? false : values.supportsPayin,
      supportsPayout: values.supportsPayout,
      payinCostRate: values.payinCostRate,
      payoutCostRate: values.payoutCostRate,
      payoutCostFixed: values.payoutCostFixed,
      minAmount: values.minAmount,
      maxAmount: values.maxAmount,
      weight: numberOr(values.weight),
      ...(typed.length
        ? { credentials: Object.fromEntries(typed.map((c) => [c.key.trim(), c.value])) }
        : clearCredentials
          ? { credentials: {} }
          : {}),
      ...(isSimulator
        ? {
            settings: {
              auto: values.auto,
              successRate: numberOr(values.successRate),
              delayMs: numberOr(values.delayMs),
              lostCallbackRate: numberOr(values.lostCallbackRate),
            },
          }
        : {}),
    };
    // Unparsed numbers and adapters go as typed: the schema check says what is wrong with them.
    const form = { setErrors, setBusy };
    const saved = editing
      ? await sendWithPaths(
          endpoints.channel.update,
          { id: channel.id, ...fields } as Input<typeof endpoints.channel.update>,
          form,
          credentialErrors,
        )
      : await sendWithPaths(
          endpoints.channel.create,
          { code: values.code, adapter: values.adapter, ...fields } as Input<typeof endpoints.channel.create>,
          form,
          credentialErrors,
        );
    if (saved) close(true);
  };

  const editCredential = (i: number, typed: Partial<Credential>) =>
    setCredentials(credentials.map((c, k) => (k === i ? { ...c, ...typed } : c)));

  const field = (key: Key, label: string, hint?: string) => (
    <DecimalField
      label={label}
      value={String(values[key])}
      onValue={set(key) as (v: string) => void}
      error={errorAt(errors, key) ?? errorAt(errors, `settings.${key}`)}
      hint={hint}
    />
  );

  return (
    <Modal
      title={
        editing ? t('screens.channel.editTitle', { code: channel.code }) : t('commands.channel.create.title')
      }
      onClose={() => close()}
      variant="sheet"
    >
      <form className="form channel-form" onSubmit={onSubmit} noValidate>
        <FieldGroup title={t('screens.channel.groups.channel')}>
          {!editing && (
            <Field
              label={t('screens.channel.code')}
              value={values.code}
              onValue={set('code')}
              error={errors.code}
              hint={t('screens.channel.codeHint')}
              autoComplete="off"
              autoFocus
              required
            />
          )}
          <Field
            label={t('screens.channel.name')}
            value={values.name}
            onValue={set('name')}
            error={errors.name}
            autoComplete="off"
            autoFocus={editing}
            required
          />
          <SelectField
            label={t('screens.channel.adapter')}
            value={values.adapter}
            onValue={setAdapter}
            options={valueOptions(adapters, (a) => t(`screens.channel.adapters.${a}`))}
            disabled={editing}
            hint={editing ? t('screens.channel.adapterFixed') : undefined}
          />
          <SelectField
            label={t('screens.channel.status')}
            value={values.status}
            onValue={(v) => set('status')(v as 'active' | 'disabled')}
            options={valueOptions(['active', 'disabled'], (s) => t(`screens.channel.statuses.${s}`))}
          />
          <fieldset className="field">
            <legend>{t('screens.channel.directions')}</legend>
            <div className="checks">
              <CheckField
                label={t('screens.channel.payin')}
                checked={values.supportsPayin && !isManualBank}
                disabled={isManualBank}
                onChecked={set('supportsPayin')}
              />
              <CheckField
                label={t('screens.channel.payout')}
                checked={values.supportsPayout}
                onChecked={set('supportsPayout')}
              />
            </div>
            {isManualBank && <p className="field-hint">{t('screens.channel.manualBankHint')}</p>}
            {errors.supportsPayin && (
              <p className="field-error" role="alert">
                {errors.supportsPayin}
              </p>
            )}
          </fieldset>
        </FieldGroup>

        <FieldGroup title={t('screens.channel.groups.cost')}>
          {field('payinCostRate', t('screens.channel.payinCostRate'), t('screens.merchant.percentHint'))}
          {field('payoutCostRate', t('screens.channel.payoutCostRate'), t('screens.merchant.percentHint'))}
          {field('payoutCostFixed', t('screens.channel.payoutCostFixed'), t('screens.merchant.amountHint'))}
          {field('minAmount', t('screens.merchant.minAmount'), t('screens.merchant.amountHint'))}
          {field('maxAmount', t('screens.merchant.maxAmount'), t('screens.merchant.maxHint'))}
          {field('weight', t('screens.channel.weight'), t('screens.channel.weightHint'))}
        </FieldGroup>

        <fieldset className="field-group">
          <legend>{t('screens.channel.credentials')}</legend>
          <p className="field-hint">
            {t(
              channel?.hasCredentials
                ? 'screens.channel.credentialsKeep'
                : 'screens.channel.credentialsWriteOnly',
            )}
          </p>
          <div className="credential-list">
            {credentials.map((c, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows are edited in place and never reordered
              <div key={i} className={`credential${errors[`credentials.${i}`] ? ' has-error' : ''}`}>
                <input
                  type="text"
                  value={c.key}
                  aria-label={t('screens.channel.credentialKey', { n: i + 1 })}
                  placeholder={t('screens.channel.credentialKeyPlaceholder')}
                  autoComplete="off"
                  onChange={(e) => editCredential(i, { key: e.target.value })}
                />
                <input
                  type="password"
                  value={c.value}
                  aria-label={t('screens.channel.credentialValue', { n: i + 1 })}
                  placeholder={t('screens.channel.credentialValuePlaceholder')}
                  autoComplete="new-password"
                  onChange={(e) => editCredential(i, { value: e.target.value })}
                />
                <button
                  type="button"
                  className="icon-button"
                  aria-label={t('screens.channel.credentialRemove', { n: i + 1 })}
                  onClick={() =>
                    setCredentials(
                      credentials.length > 1
                        ? credentials.filter((_, k) => k !== i)
                        : [{ key: '', value: '' }],
                    )
                  }
                >
                  <Icon name="close" />
                </button>
                {errors[`credentials.${i}`] && (
                  <p className="field-error" role="alert">
                    {errors[`credentials.${i}`]}
                  </p>
                )}
              </div>
            ))}
          </div>
          <div className="credential-actions">
            <button
              type="button"
              className="button"
              onClick={() => setCredentials([...credentials, { key: '', value: '' }])}
            >
              <Icon name="plus" />
              {t('screens.channel.credentialAdd')}
            </button>
            {channel?.hasCredentials && (
              <CheckField
                label={t('screens.channel.credentialsClear')}
                checked={clearCredentials}
                onChecked={setClearCredentials}
              />
            )}
          </div>
        </fieldset>

        {isSimulator && (
          <FieldGroup title={t('screens.channel.groups.simulator')}>
            <label className="check field-wide">
              <input type="checkbox" checked={values.auto} onChange={(e) => set('auto')(e.target.checked)} />
              {t('screens.channel.auto')}
            </label>
            {field('successRate', t('screens.channel.successRate'), t('screens.channel.successRateHint'))}
            {field('delayMs', t('screens.channel.delayMs'), t('screens.channel.delayHint'))}
            {field('lostCallbackRate', t('screens.channel.lostCallbackRate'), t('screens.channel.lostHint'))}
          </FieldGroup>
        )}

        <FormActions busy={busy} onCancel={() => close()} />
      </form>
    </Modal>
  );
}
