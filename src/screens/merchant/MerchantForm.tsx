import { useStore } from '@nanostores/react';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { allows, endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { CheckField, FieldGroup, rowOptions, SelectField, TextAreaField } from '../../ui/fields.tsx';
import { DecimalField, Field, FormActions, NewPasswordField } from '../../ui/form.tsx';
import { errorAt, type PathErrors, sendWithPaths } from '../../ui/formPaths.ts';
import { Modal } from '../../ui/Modal.tsx';
import './merchant.css';
import { whitelistOf } from './terms.ts';

type Merchant = Contexts['merchant'];

interface Props {
  merchant?: Merchant;
  close: (result?: unknown) => void;
}

interface Route {
  on: boolean;
  weight: string;
}

/** What a new merchant starts from: the server's own defaults, shown so nothing is set unseen. */
const defaults = { minAmount: '1.00', maxAmount: '1000000.00', rate: '0', fee: '0.00' };

const blankToUndefined = (s: string) => (s.trim() === '' ? undefined : s);

/**
 * Creates a merchant with its owner and terms (answers its secrets, shown once by the caller), or edits
 * one's terms. Checked with the contract's own schemas before it is sent.
 */
export default function MerchantForm({ merchant, close }: Props) {
  const t = useT();
  const grants = useStore($grants);
  const editing = merchant !== undefined;
  const agents = useQuery({
    queryKey: ['merchant-form', 'agents'],
    queryFn: () => api(endpoints.agent.list, { pageSize: 100 }),
    enabled: allows(grants, [endpoints.agent.list]),
  });
  const channels = useQuery({
    queryKey: ['merchant-form', 'channels'],
    queryFn: () => api(endpoints.channel.list, { pageSize: 100 }),
    enabled: allows(grants, [endpoints.channel.list]),
  });

  const cycle = merchant?.settlementCycle ?? 'D0';
  const [values, setValues] = useState({
    name: merchant?.name ?? '',
    code: '',
    agentId: merchant?.agentId ? String(merchant.agentId) : '',
    username: '',
    password: '',
    email: '',
    collectionRate: merchant?.collectionRate ?? defaults.rate,
    platformFee: merchant?.platformFee ?? defaults.fee,
    payoutRate: merchant?.payoutRate ?? defaults.rate,
    payoutFee: merchant?.payoutFee ?? defaults.fee,
    surcharge: merchant?.surcharge ?? defaults.rate,
    exchangeRate: merchant?.exchangeRate ?? defaults.rate,
    minAmount: merchant?.minAmount ?? defaults.minAmount,
    maxAmount: merchant?.maxAmount ?? defaults.maxAmount,
    cycleKind: cycle === 'D0' ? 'D0' : 'T',
    cycleDays: cycle === 'D0' ? '1' : cycle.slice(1),
    settlementRate: merchant?.settlementRate ?? defaults.rate,
    settlementFee: merchant?.settlementFee ?? defaults.fee,
    callbackUrl: merchant?.callbackUrl ?? '',
    whitelist: (merchant?.payoutIpWhitelist ?? []).join('\n'),
    velocityPayinsPerDay: merchant?.velocityPayinsPerDay?.toString() ?? '',
    velocityAmountPerDay: merchant?.velocityAmountPerDay ?? '',
    reservePercent: merchant?.reservePercent ?? '',
    reserveDays: merchant?.reserveDays?.toString() ?? '',
  });
  const [routes, setRoutes] = useState<Record<number, Route>>(() =>
    Object.fromEntries(
      (merchant?.channels ?? []).map((c) => [c.channelId, { on: true, weight: String(c.weight) }]),
    ),
  );
  const [errors, setErrors] = useState<PathErrors>({});
  const [busy, setBusy] = useState(false);

  // A new merchant routes through every active channel at its own weight until the operator says otherwise.
  useEffect(() => {
    if (editing || !channels.data) return;
    setRoutes((r) =>
      Object.keys(r).length
        ? r
        : Object.fromEntries(
            channels.data.list
              .filter((c) => c.status === 'active')
              .map((c) => [c.id, { on: true, weight: String(c.weight) }]),
          ),
    );
  }, [channels.data, editing]);

  type Key = keyof typeof values;
  const set = (key: Key) => (value: string) => {
    setValues((v) => ({ ...v, [key]: value }));
    setErrors((e) => {
      const path = fieldPath[key] ?? key;
      if (!errorAt(e, path)) return e;
      return Object.fromEntries(Object.entries(e).filter(([k]) => k !== path && !k.startsWith(`${path}.`)));
    });
  };
  const err = (key: Key) => errorAt(errors, fieldPath[key] ?? key);
  /** A field's value, setter and error, spread onto it as `useForm`'s `field` is. */
  const field = (key: Key) => ({ value: values[key], onValue: set(key), error: err(key) });
  /** One of the merchant's terms (a rate, a fee, a limit), labelled by its name and typed in decimals. */
  const term = (key: Key, hint: string, required?: boolean) => (
    <DecimalField label={t(`screens.merchant.${key}`)} {...field(key)} hint={hint} required={required} />
  );
  // A refused whitelist entry is named, so it can be found among many.
  const whitelistError = () => {
    const found = Object.entries(errors).find(([k]) => k.startsWith('payoutIpWhitelist'));
    if (!found) return undefined;
    const entry = whitelistOf(values.whitelist)[Number(found[0].split('.')[1])];
    return entry ? `${entry}: ${found[1]}` : found[1];
  };

  const terms = () => {
    const assigned = Object.entries(routes)
      .filter(([, r]) => r.on)
      .map(([channelId, r]) => ({
        channelId: Number(channelId),
        weight: r.weight.trim() === '' ? Number.NaN : Number(r.weight),
      }));
    return {
      // Only when the agent list was offered: an edit must not drop an agent the user cannot see.
      ...(agents.data ? { agentId: values.agentId ? Number(values.agentId) : null } : {}),
      collectionRate: blankToUndefined(values.collectionRate),
      platformFee: blankToUndefined(values.platformFee),
      payoutRate: blankToUndefined(values.payoutRate),
      payoutFee: blankToUndefined(values.payoutFee),
      surcharge: blankToUndefined(values.surcharge),
      exchangeRate: blankToUndefined(values.exchangeRate),
      minAmount: values.minAmount,
      maxAmount: values.maxAmount,
      settlementCycle: values.cycleKind === 'D0' ? 'D0' : `T${values.cycleDays.trim()}`,
      settlementRate: blankToUndefined(values.settlementRate),
      settlementFee: blankToUndefined(values.settlementFee),
      payoutIpWhitelist: whitelistOf(values.whitelist),
      callbackUrl: values.callbackUrl.trim(),
      // Empty: no limit (null clears one set before).
      velocityPayinsPerDay:
        values.velocityPayinsPerDay.trim() === '' ? null : Number(values.velocityPayinsPerDay.trim()),
      velocityAmountPerDay: values.velocityAmountPerDay.trim() === '' ? null : values.velocityAmountPerDay,
      // Empty: no reserve (both or neither; the server names the one missing).
      reservePercent: values.reservePercent.trim() === '' ? null : values.reservePercent,
      reserveDays: values.reserveDays.trim() === '' ? null : Number(values.reserveDays.trim()),
      ...(channels.data ? { channels: assigned } : {}),
    };
  };

  const onSubmit = async (e: React.FormEvent) => {
    e.preventDefault();
    const form = {
      setErrors: (errors: PathErrors) => {
        setErrors(errors);
        focusFirstError();
      },
      setBusy,
    };
    if (editing) {
      const input = { id: merchant.id, name: values.name, ...terms() };
      if (await sendWithPaths(endpoints.merchant.update, input, form)) close(true);
      return;
    }
    const input = {
      name: values.name,
      code: blankToUndefined(values.code),
      owner: {
        username: values.username,
        password: values.password,
        email: blankToUndefined(values.email),
      },
      ...terms(),
    };
    const made = await sendWithPaths(endpoints.merchant.create, input, form);
    if (made) close(made.answer);
  };

  const agentOptions = rowOptions(
    t('screens.merchant.noAgent'),
    agents.data?.list,
    (a) => `${a.code} ${a.name} (${a.commissionRate} %)`,
  );
  const percentHint = t('screens.merchant.percentHint');
  const amountHint = t('screens.merchant.amountHint');

  return (
    <Modal
      title={
        editing
          ? t('screens.merchant.editTitle', { code: merchant.code })
          : t('commands.merchant.create.title')
      }
      onClose={() => close()}
      variant="sheet"
    >
      <form className="form merchant-form" onSubmit={onSubmit} noValidate>
        <FieldGroup title={t('screens.merchant.groups.merchant')}>
          <Field
            label={t('screens.merchant.name')}
            {...field('name')}
            required
            autoFocus
            autoComplete="off"
          />
          {!editing && (
            <Field
              label={t('screens.merchant.code')}
              {...field('code')}
              hint={t('screens.merchant.codeHint')}
              autoComplete="off"
            />
          )}
          {agents.data && (
            <SelectField label={t('screens.merchant.agent')} {...field('agentId')} options={agentOptions} />
          )}
        </FieldGroup>

        {!editing && (
          <FieldGroup title={t('screens.merchant.groups.owner')}>
            <Field
              label={t('screens.merchant.ownerUsername')}
              {...field('username')}
              required
              autoComplete="off"
            />
            <NewPasswordField
              label={t('screens.merchant.ownerPassword')}
              {...field('password')}
              hint={t('validation.adminPasswordRule')}
            />
            <Field
              label={t('screens.merchant.ownerEmail')}
              type="email"
              {...field('email')}
              hint={t('screens.merchant.ownerEmailHint')}
              autoComplete="off"
            />
          </FieldGroup>
        )}

        <FieldGroup title={t('screens.merchant.groups.rates')}>
          {term('collectionRate', percentHint)}
          {term('platformFee', t('screens.merchant.platformFeeHint'))}
          {term('payoutRate', percentHint)}
          {term('payoutFee', amountHint)}
          {term('surcharge', percentHint)}
          {term('exchangeRate', t('screens.merchant.exchangeRateHint'))}
        </FieldGroup>

        <FieldGroup title={t('screens.merchant.groups.limits')}>
          {term('minAmount', amountHint, true)}
          {term('maxAmount', t('screens.merchant.maxHint'), true)}
          <div className="cycle-field">
            <SelectField
              label={t('screens.merchant.settlementCycle')}
              value={values.cycleKind}
              onValue={set('cycleKind')}
              options={[
                { value: 'D0', label: t('screens.merchant.cycleD0') },
                { value: 'T', label: t('screens.merchant.cycleTN') },
              ]}
            />
            {values.cycleKind === 'T' && (
              <Field label={t('screens.merchant.cycleDays')} {...field('cycleDays')} inputMode="numeric" />
            )}
          </div>
          {term('settlementRate', percentHint)}
          {term('settlementFee', t('screens.merchant.settlementFeeHint'))}
        </FieldGroup>

        <FieldGroup title={t('screens.merchant.groups.velocity')}>
          <Field
            label={t('screens.merchant.velocityPayinsPerDay')}
            {...field('velocityPayinsPerDay')}
            hint={t('screens.merchant.velocityHint')}
            inputMode="numeric"
            autoComplete="off"
          />
          {term('velocityAmountPerDay', t('screens.merchant.velocityHint'))}
        </FieldGroup>

        <FieldGroup title={t('screens.merchant.groups.reserve')}>
          {term('reservePercent', t('screens.merchant.reservePercentHint'))}
          <Field
            label={t('screens.merchant.reserveDays')}
            {...field('reserveDays')}
            hint={t('screens.merchant.reserveDaysHint')}
            inputMode="numeric"
            autoComplete="off"
          />
        </FieldGroup>

        {channels.data && (
          <fieldset className="field-group">
            <legend>{t('screens.merchant.groups.channels')}</legend>
            <div className="route-list">
              {channels.data.list.map((c) => {
                const r = routes[c.id] ?? { on: false, weight: String(c.weight) };
                const setRoute = (next: Partial<Route>) => {
                  setRoutes((all) => ({ ...all, [c.id]: { ...r, ...next } }));
                  setErrors((e) =>
                    Object.fromEntries(Object.entries(e).filter(([k]) => !k.startsWith('channels'))),
                  );
                };
                return (
                  <div key={c.id} className="route">
                    <CheckField
                      label={
                        <>
                          <code>{c.code}</code> {c.name}
                        </>
                      }
                      checked={r.on}
                      onChecked={(on) => setRoute({ on })}
                    />
                    {c.status !== 'active' && (
                      <Badge tone="muted">{t('screens.channel.statuses.disabled')}</Badge>
                    )}
                    <label className="route-weight">
                      <span>{t('screens.merchant.weight')}</span>
                      <input
                        type="text"
                        inputMode="numeric"
                        value={r.weight}
                        disabled={!r.on}
                        onChange={(e) => setRoute({ weight: e.target.value })}
                        aria-label={t('screens.merchant.weightOf', { code: c.code })}
                      />
                    </label>
                  </div>
                );
              })}
            </div>
            {errorAt(errors, 'channels') ? (
              <p className="field-error" role="alert">
                {errorAt(errors, 'channels')}
              </p>
            ) : (
              <p className="field-hint">{t('screens.merchant.weightHint')}</p>
            )}
          </fieldset>
        )}

        <FieldGroup title={t('screens.merchant.groups.connection')}>
          <div className="field-wide">
            <Field
              label={t('screens.merchant.callbackUrl')}
              type="url"
              {...field('callbackUrl')}
              placeholder={t('screens.merchant.callbackPlaceholder')}
              autoComplete="off"
            />
          </div>
          <div className="field-wide">
            <TextAreaField
              label={t('screens.merchant.whitelist')}
              value={values.whitelist}
              onValue={set('whitelist')}
              error={whitelistError()}
              hint={t('screens.merchant.whitelistHint')}
              rows={3}
            />
          </div>
        </FieldGroup>

        <FormActions
          busy={busy}
          onCancel={() => close()}
          submitLabel={t(editing ? 'app.save' : 'screens.merchant.createSubmit')}
        />
      </form>
    </Modal>
  );
}

/** Where the schema reports a form field's errors, when that is not the field's own name. */
const fieldPath: Partial<Record<string, string>> = {
  username: 'owner.username',
  password: 'owner.password',
  email: 'owner.email',
  cycleKind: 'settlementCycle',
  cycleDays: 'settlementCycle',
  whitelist: 'payoutIpWhitelist',
};

function focusFirstError() {
  requestAnimationFrame(() => document.querySelector<HTMLElement>('.modal [aria-invalid="true"]')?.focus());
}
