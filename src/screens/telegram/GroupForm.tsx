import { useState } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { useChoices } from '../../ui/choices.ts';
import { CheckField } from '../../ui/fields.tsx';
import { Field, FormActions, savedThenClose, VerbatimField } from '../../ui/form.tsx';
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

/** The alerts a group switches on or off, in the order the form shows them. */
const flagRules = [
  'callbackGaveUp',
  'settlementApplied',
  'nearThreshold',
  'statementFeed',
  'disputeDeadline',
] as const;
type Flag = (typeof flagRules)[number];

/** A number rule's state: whether it is on, and its threshold as typed. */
function useRule(initiallyOn: boolean, initialValue: string) {
  const [on, setOn] = useState(initiallyOn);
  const [value, setValue] = useState(initialValue);
  return { on, setOn, value, setValue, sent: on ? value : null };
}

/** A number rule of a group: on when ticked, its threshold typed next to it (its refusal under it). */
function Rule({
  name,
  unit,
  rule,
  errors,
}: {
  name: 'payoutStuckMinutes' | 'payoutBalanceFloor' | 'channelSuccessFloorPct';
  unit: 'minutes' | 'amount' | 'percent';
  rule: ReturnType<typeof useRule>;
  errors: PathErrors;
}) {
  const t = useT();
  const label = t(`screens.telegram.rules.${name}`);
  const unitLabel = t(`screens.telegram.units.${unit}`);
  const error = errorAt(errors, `alerts.${name}`);
  return (
    <div className="tg-rule">
      <CheckField label={label} checked={rule.on} onChecked={rule.setOn} />
      <span className={`field tg-threshold${error ? ' has-error' : ''}`}>
        <input
          value={rule.value}
          onChange={(e) => rule.setValue(e.target.value)}
          disabled={!rule.on}
          inputMode="decimal"
          aria-label={`${label} (${unitLabel})`}
          aria-invalid={error ? true : undefined}
        />
        <span className="muted">{unitLabel}</span>
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
  const [flags, setFlags] = useState<Record<Flag, boolean>>({
    callbackGaveUp: a?.callbackGaveUp ?? true,
    settlementApplied: a?.settlementApplied ?? false,
    nearThreshold: a?.nearThreshold ?? false,
    statementFeed: a?.statementFeed ?? true,
    disputeDeadline: a?.disputeDeadline ?? true,
  });
  const stuck = useRule(a ? a.payoutStuckMinutes !== null : true, String(a?.payoutStuckMinutes ?? 30));
  const floor = useRule(a ? a.payoutBalanceFloor !== null : false, a?.payoutBalanceFloor ?? '10000.00');
  const rate = useRule(
    a ? a.channelSuccessFloorPct !== null : false,
    String(a?.channelSuccessFloorPct ?? 50),
  );
  const [errors, setErrors] = useState<PathErrors>({});
  const [busy, setBusy] = useState(false);

  const merchants = useChoices(endpoints.merchant.list, {});
  const channels = useChoices(endpoints.channel.list, {});

  const onSubmit = async (e: React.FormEvent) => {
    e.preventDefault();
    const input = {
      chatId,
      name,
      merchantIds,
      channelIds,
      alerts: {
        ...flags,
        payoutStuckMinutes: stuck.sent,
        payoutBalanceFloor: floor.sent,
        channelSuccessFloorPct: rate.sent,
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
        <VerbatimField
          label={t('screens.telegram.chatId')}
          value={chatId}
          onValue={setChatId}
          error={errorAt(errors, 'chatId')}
          hint={t('screens.telegram.chatIdHint')}
          required
        />
        <Section title={t('screens.telegram.alerts')}>
          {flagRules.map((flag) => (
            <CheckField
              key={flag}
              label={t(`screens.telegram.rules.${flag}`)}
              checked={flags[flag]}
              onChecked={(on) => setFlags((f) => ({ ...f, [flag]: on }))}
            />
          ))}
          <Rule name="payoutStuckMinutes" unit="minutes" rule={stuck} errors={errors} />
          <Rule name="payoutBalanceFloor" unit="amount" rule={floor} errors={errors} />
          <Rule name="channelSuccessFloorPct" unit="percent" rule={rate} errors={errors} />
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
