import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { useT } from '../../lib/useT.ts';
import { Field, FormActions, savedThenClose } from '../../ui/form.tsx';
import { errorAt, type PathErrors, sendWithPaths } from '../../ui/formPaths.ts';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import './telegram.css';

type Group = Contexts['telegramGroup'];

interface Props {
  group?: Group;
  close: (result?: unknown) => void;
}

/** A titled block of the form, one column (rules and lists read down, not across). */
function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <fieldset className="field-group">
      <legend>{title}</legend>
      <div className="tg-stack">{children}</div>
    </fieldset>
  );
}

/** Ticks some of a list (merchants, channels); none ticked: the group follows them all. */
function Picks({
  label,
  options,
  value,
  onValue,
  error,
}: {
  label: string;
  options: { id: number; label: string }[];
  value: number[];
  onValue: (ids: number[]) => void;
  error?: string | undefined;
}) {
  const t = useT();
  return (
    <Section title={label}>
      <p className="field-hint">
        {value.length ? t('screens.telegram.some', { n: value.length }) : t('screens.telegram.allHint')}
      </p>
      <fieldset className="tg-picks" aria-label={label}>
        {options.map((o) => (
          <label key={o.id} className="check">
            <input
              type="checkbox"
              checked={value.includes(o.id)}
              onChange={(e) =>
                onValue(e.target.checked ? [...value, o.id] : value.filter((id) => id !== o.id))
              }
            />
            {o.label}
          </label>
        ))}
      </fieldset>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </Section>
  );
}

/** A number rule of a group: on when ticked, its threshold typed next to it. */
function Rule({
  label,
  on,
  onOn,
  value,
  onValue,
  unit,
  error,
}: {
  label: string;
  on: boolean;
  onOn: (on: boolean) => void;
  value: string;
  onValue: (v: string) => void;
  unit: string;
  error?: string | undefined;
}) {
  return (
    <div className="tg-rule">
      <label className="check">
        <input type="checkbox" checked={on} onChange={(e) => onOn(e.target.checked)} />
        {label}
      </label>
      <span className={`field tg-threshold${error ? ' has-error' : ''}`}>
        <input
          value={value}
          onChange={(e) => onValue(e.target.value)}
          disabled={!on}
          inputMode="decimal"
          aria-label={`${label} (${unit})`}
          aria-invalid={error ? true : undefined}
        />
        <span className="muted">{unit}</span>
      </span>
      {error && (
        <p className="field-error tg-rule-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * Adds a Telegram group or edits one: its chat, name, the merchants and channels it follows (none: all)
 * and the alerts it wants, with the thresholds of those that have one.
 */
export default function GroupForm({ group, close }: Props) {
  const t = useT();
  // The first field, also when opened over a row's drawer (autoFocus loses to the drawer's focus trap).
  const formRef = useOpeningFocus();
  const a = group?.alerts;
  const [chatId, setChatId] = useState(group?.chatId ?? '');
  const [name, setName] = useState(group?.name ?? '');
  const [merchantIds, setMerchantIds] = useState<number[]>(group?.merchantIds ?? []);
  const [channelIds, setChannelIds] = useState<number[]>(group?.channelIds ?? []);
  const [gaveUp, setGaveUp] = useState(a?.callbackGaveUp ?? true);
  const [applied, setApplied] = useState(a?.settlementApplied ?? false);
  const [near, setNear] = useState(a?.nearThreshold ?? false);
  const [feed, setFeed] = useState(a?.statementFeed ?? true);
  const [stuckOn, setStuckOn] = useState(a ? a.payoutStuckMinutes !== null : true);
  const [stuck, setStuck] = useState(String(a?.payoutStuckMinutes ?? 30));
  const [floorOn, setFloorOn] = useState(a ? a.payoutBalanceFloor !== null : false);
  const [floor, setFloor] = useState(a?.payoutBalanceFloor ?? '10000.00');
  const [rateOn, setRateOn] = useState(a ? a.channelSuccessFloorPct !== null : false);
  const [rate, setRate] = useState(String(a?.channelSuccessFloorPct ?? 50));
  const [errors, setErrors] = useState<PathErrors>({});
  const [busy, setBusy] = useState(false);

  const merchants = useQuery({
    queryKey: ['telegram-form', 'merchants'],
    queryFn: () => api(endpoints.merchant.list, { pageSize: 100 }),
  });
  const channels = useQuery({
    queryKey: ['telegram-form', 'channels'],
    queryFn: () => api(endpoints.channel.list, { pageSize: 100 }),
  });

  const onSubmit = async (e: React.FormEvent) => {
    e.preventDefault();
    const input = {
      chatId,
      name,
      merchantIds,
      channelIds,
      alerts: {
        callbackGaveUp: gaveUp,
        settlementApplied: applied,
        nearThreshold: near,
        statementFeed: feed,
        payoutStuckMinutes: stuckOn ? stuck : null,
        payoutBalanceFloor: floorOn ? floor : null,
        channelSuccessFloorPct: rateOn ? rate : null,
      },
    };
    const form = { setErrors, setBusy };
    const saved = group
      ? await sendWithPaths(
          endpoints.telegram.groupUpdate,
          { id: group.id, status: group.status, ...input },
          form,
        )
      : await sendWithPaths(endpoints.telegram.groupCreate, input, form);
    if (saved) savedThenClose(close)();
  };

  return (
    <Modal
      title={t(group ? 'commands.telegram.groupUpdate.title' : 'commands.telegram.groupCreate.title')}
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={(e) => void onSubmit(e)} noValidate>
        <Field
          label={t('screens.telegram.name')}
          value={name}
          onValue={setName}
          error={errorAt(errors, 'name')}
          maxLength={64}
          autoComplete="off"
          required
        />
        <Field
          label={t('screens.telegram.chatId')}
          value={chatId}
          onValue={setChatId}
          error={errorAt(errors, 'chatId')}
          hint={t('screens.telegram.chatIdHint')}
          autoComplete="off"
          spellCheck={false}
          required
        />
        <Section title={t('screens.telegram.alerts')}>
          <label className="check">
            <input type="checkbox" checked={gaveUp} onChange={(e) => setGaveUp(e.target.checked)} />
            {t('screens.telegram.rules.callbackGaveUp')}
          </label>
          <label className="check">
            <input type="checkbox" checked={applied} onChange={(e) => setApplied(e.target.checked)} />
            {t('screens.telegram.rules.settlementApplied')}
          </label>
          <label className="check">
            <input type="checkbox" checked={near} onChange={(e) => setNear(e.target.checked)} />
            {t('screens.telegram.rules.nearThreshold')}
          </label>
          <label className="check">
            <input type="checkbox" checked={feed} onChange={(e) => setFeed(e.target.checked)} />
            {t('screens.telegram.rules.statementFeed')}
          </label>
          <Rule
            label={t('screens.telegram.rules.payoutStuckMinutes')}
            on={stuckOn}
            onOn={setStuckOn}
            value={stuck}
            onValue={setStuck}
            unit={t('screens.telegram.units.minutes')}
            error={errorAt(errors, 'alerts.payoutStuckMinutes')}
          />
          <Rule
            label={t('screens.telegram.rules.payoutBalanceFloor')}
            on={floorOn}
            onOn={setFloorOn}
            value={floor}
            onValue={setFloor}
            unit={t('screens.telegram.units.amount')}
            error={errorAt(errors, 'alerts.payoutBalanceFloor')}
          />
          <Rule
            label={t('screens.telegram.rules.channelSuccessFloorPct')}
            on={rateOn}
            onOn={setRateOn}
            value={rate}
            onValue={setRate}
            unit={t('screens.telegram.units.percent')}
            error={errorAt(errors, 'alerts.channelSuccessFloorPct')}
          />
        </Section>
        <Picks
          label={t('screens.telegram.merchants')}
          options={(merchants.data?.list ?? []).map((m) => ({ id: m.id, label: `${m.code} ${m.name}` }))}
          value={merchantIds}
          onValue={setMerchantIds}
          error={errorAt(errors, 'merchantIds')}
        />
        <Picks
          label={t('screens.telegram.channels')}
          options={(channels.data?.list ?? []).map((c) => ({ id: c.id, label: `${c.code} ${c.name}` }))}
          value={channelIds}
          onValue={setChannelIds}
          error={errorAt(errors, 'channelIds')}
        />
        <FormActions busy={busy} onCancel={() => close()} />
      </form>
    </Modal>
  );
}
