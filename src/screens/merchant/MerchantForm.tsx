import { useStore } from '@nanostores/react';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { allows, endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { FieldGroup, SelectField, TextAreaField } from '../../ui/fields.tsx';
import { Field, FormActions } from '../../ui/form.tsx';
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

  const agentOptions = [
    { value: '', label: t('screens.merchant.noAgent') },
    ...(agents.data?.list ?? []).map((a) => ({
      value: String(a.id),
      label: `${a.code} ${a.name} (${a.commissionRate} %)`,
    })),
  ];
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
            value={values.name}
            onValue={set('name')}
            error={err('name')}
            required
            autoFocus
            autoComplete="off"
          />
          {!editing && (
            <Field
              label={t('screens.merchant.code')}
              value={values.code}
              onValue={set('code')}
              error={err('code')}
              hint={t('screens.merchant.codeHint')}
              autoComplete="off"
            />
          )}
          {agents.data && (
            <SelectField
              label={t('screens.merchant.agent')}
              value={values.agentId}
              onValue={set('agentId')}
              error={err('agentId')}
              options={agentOptions}
            />
          )}
        </FieldGroup>

        {!editing && (
          <FieldGroup title={t('screens.merchant.groups.owner')}>
            <Field
              label={t('screens.merchant.ownerUsername')}
              value={values.username}
              onValue={set('username')}
              error={err('username')}
              required
              autoComplete="off"
            />
            <Field
              label={t('screens.merchant.ownerPassword')}
              type="password"
              value={values.password}
              onValue={set('password')}
              error={err('password')}
              hint={t('validation.adminPasswordRule')}
              required
              autoComplete="new-password"
            />
            <Field
              label={t('screens.merchant.ownerEmail')}
              type="email"
              value={values.email}
              onValue={set('email')}
              error={err('email')}
              hint={t('screens.merchant.ownerEmailHint')}
              autoComplete="off"
            />
          </FieldGroup>
        )}

        <FieldGroup title={t('screens.merchant.groups.rates')}>
          <Field
            label={t('screens.merchant.collectionRate')}
            value={values.collectionRate}
            onValue={set('collectionRate')}
            error={err('collectionRate')}
            hint={percentHint}
            inputMode="decimal"
          />
          <Field
            label={t('screens.merchant.platformFee')}
            value={values.platformFee}
            onValue={set('platformFee')}
            error={err('platformFee')}
            hint={t('screens.merchant.platformFeeHint')}
            inputMode="decimal"
          />
          <Field
            label={t('screens.merchant.payoutRate')}
            value={values.payoutRate}
            onValue={set('payoutRate')}
            error={err('payoutRate')}
            hint={percentHint}
            inputMode="decimal"
          />
          <Field
            label={t('screens.merchant.payoutFee')}
            value={values.payoutFee}
            onValue={set('payoutFee')}
            error={err('payoutFee')}
            hint={amountHint}
            inputMode="decimal"
          />
          <Field
            label={t('screens.merchant.surcharge')}
            value={values.surcharge}
            onValue={set('surcharge')}
            error={err('surcharge')}
            hint={percentHint}
            inputMode="decimal"
          />
          <Field
            label={t('screens.merchant.exchangeRate')}
            value={values.exchangeRate}
            onValue={set('exchangeRate')}
            error={err('exchangeRate')}
            hint={t('screens.merchant.exchangeRateHint')}
            inputMode="decimal"
          />
        </FieldGroup>

        <FieldGroup title={t('screens.merchant.groups.limits')}>
          <Field
            label={t('screens.merchant.minAmount')}
            value={values.minAmount}
            onValue={set('minAmount')}
            error={err('minAmount')}
            hint={amountHint}
            inputMode="decimal"
            required
          />
          <Field
            label={t('screens.merchant.maxAmount')}
            value={values.maxAmount}
            onValue={set('maxAmount')}
            error={err('maxAmount')}
            hint={t('screens.merchant.maxHint')}
            inputMode="decimal"
            required
          />
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
              <Field
                label={t('screens.merchant.cycleDays')}
                value={values.cycleDays}
                onValue={set('cycleDays')}
                error={err('cycleDays')}
                inputMode="numeric"
              />
            )}
          </div>
          <Field
            label={t('screens.merchant.settlementRate')}
            value={values.settlementRate}
            onValue={set('settlementRate')}
            error={err('settlementRate')}
            hint={percentHint}
            inputMode="decimal"
          />
          <Field
            label={t('screens.merchant.settlementFee')}
            value={values.settlementFee}
            onValue={set('settlementFee')}
            error={err('settlementFee')}
            hint={t('screens.merchant.settlementFeeHint')}
            inputMode="decimal"
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
                    <label className="check">
                      <input
                        type="checkbox"
                        checked={r.on}
                        onChange={(e) => setRoute({ on: e.target.checked })}
                      />
                      <code>{c.code}</code> {c.name}
                    </label>
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
              value={values.callbackUrl}
              onValue={set('callbackUrl')}
              error={err('callbackUrl')}
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
