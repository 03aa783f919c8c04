/**
 * The platform parameters (OPERATIONS.md section 4), each declared once: its kind (which input edits it),
 * the schema of its stored value and its default. Labels and descriptions are in the locales
 * (`parameters.<key>.label` / `.description`), a refused value's message under `parameters.invalid.<kind>`.
 * The server reads them through `server/lib/parameters.ts` (an invalid stored value reads as the default);
 * `/parameter/list` and `/parameter/update` show and change them. Amounts are minor units when stored and
 * decimal strings on the wire, as every amount of the API (`toWire` / `fromWire`).
 */
import * as z from 'zod/mini';
import { amountOrZero, formatMinor } from './money.ts';
import { noControlsButBreaks } from './schemas.ts';

export const parameterKinds = ['switch', 'minutes', 'seconds', 'timeZone', 'time', 'money', 'text'] as const;
export type ParameterKind = (typeof parameterKinds)[number];

/** Limits the schemas use, also named by the refusal messages. */
export const parameterLimits = {
  minutes: { min: 1, max: 1440 },
  /** The money session: how long one Google code unlocks queue decisions (minutes). */
  moneySession: { min: 1, max: 30 },
  /**
   * A callback schedule: 1–20 waits, each at most a day; the first may be 0 (at once), every retry waits at
   * least `retryMin` seconds and no less than the one before (a receiver that is down is not hammered).
   */
  seconds: { min: 0, max: 86_400, items: 20, retryMin: 5 },
  /** Amounts (minor units); the threshold of maker–checker at most 1,00,00,000.00 (one crore): lower is stricter. */
  money: { min: 0, max: 1_000_000_000 },
  threshold: { min: 0, max: 1_000_000_000 },
  text: { max: 500 },
} as const;

/** A time zone the runtime knows (IANA name, `Asia/Kolkata`); the server also asks the database. */
export function isTimeZone(zone: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const { minutes, seconds, money, threshold, text, moneySession } = parameterLimits;
const minor = z.number().check(z.int(), z.minimum(money.min), z.maximum(money.max));

/** Retries wait at least `retryMin` seconds each and never less than the retry before. */
const sensibleSchedule = (waits: readonly number[]) =>
  waits.every((w, i) => i === 0 || (w >= seconds.retryMin && w >= waits[i - 1]!));

export const parameterDefs = {
  /** Platform users must bind a Google key before anything else (REQUIRE_GOOGLE_AUTH=1 forces it for everyone). */
  require_google_auth: {
    kind: 'switch',
    schema: z.boolean(),
    default: false,
    // Switching the control off takes a second platform user.
    fourEyes: (before: unknown, after: unknown) => before === true && after === false,
  },
  /**
   * Minutes one Google code unlocks the decisions of queue doors for (the money session, docs/SECURITY.md);
   * each decision is still logged, and doors that create money or change settings still ask for a code.
   */
  money_session_minutes: {
    kind: 'minutes',
    schema: z.number().check(z.int(), z.minimum(moneySession.min), z.maximum(moneySession.max)),
    default: 5,
    // A longer window is a weaker control: lengthening it takes a second platform user.
    fourEyes: (before: unknown, after: unknown) => Number(after) > Number(before),
  },
  /** Minutes a payer has to pay before a pay-in turns `unpaid`. */
  payin_expiry_minutes: {
    kind: 'minutes',
    schema: z.number().check(z.int(), z.minimum(minutes.min), z.maximum(minutes.max)),
    default: 30,
  },
  /** Seconds to wait before each callback attempt: the first (usually 0), then each retry; then it gives up. */
  callback_schedule: {
    kind: 'seconds',
    schema: z
      .array(z.number().check(z.int(), z.minimum(seconds.min), z.maximum(seconds.max)))
      .check(z.minLength(1), z.maxLength(seconds.items), z.refine(sensibleSchedule)),
    default: [0, 5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400],
  },
  /**
   * Whose calendar days are business days (dashboards, reports, limits, T+N). Unset, BUSINESS_TIME_ZONE
   * (or this default) applies; a change rebuilds the daily rollups in the new zone.
   */
  business_time_zone: {
    kind: 'timeZone',
    schema: z.string().check(z.refine(isTimeZone)),
    default: 'Asia/Kolkata',
  },
  /** When the daily T+N settlement run starts, business time (`HH:MM`). */
  tn_run_time: {
    kind: 'time',
    schema: z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/)),
    default: '00:30',
  },
  /** Smallest settlement application, in minor units. */
  min_settlement_amount: { kind: 'money', schema: minor, default: 10_000 },
  /**
   * What one user may decide alone, and one wallet receive that way, over a rolling day (minor units);
   * beyond it a second platform user approves (maker–checker, contract/doors.ts).
   */
  maker_checker_threshold: {
    kind: 'money',
    schema: z.number().check(z.int(), z.minimum(threshold.min), z.maximum(threshold.max)),
    default: 10_000_000,
    // Raising the limit of what one person decides alone takes a second platform user.
    fourEyes: (before: unknown, after: unknown) => Number(after) > Number(before),
  },
  /** Imported statement lines are matched to orders at once; off, they wait for a rematch by hand. */
  statement_auto_match: { kind: 'switch', schema: z.boolean(), default: true },
  /** Plain text the pay page shows payers (how to reach support); empty shows nothing. */
  pay_page_support_text: {
    kind: 'text',
    schema: z.string().check(z.maxLength(text.max), noControlsButBreaks),
    default: '',
  },
} as const;

export type ParameterKey = keyof typeof parameterDefs;
export const parameterKeys = Object.keys(parameterDefs) as ParameterKey[];
/** A parameter's value as its schema reads it (not the literal type of its default). */
export type ParameterValue<K extends ParameterKey> = z.output<(typeof parameterDefs)[K]['schema']>;

export const isParameterKey = (key: string): key is ParameterKey => Object.hasOwn(parameterDefs, key);

/** The stored value when its schema takes it, else undefined. */
export function validParameter<K extends ParameterKey>(
  key: K,
  value: unknown,
): ParameterValue<K> | undefined {
  const parsed = z.safeParse(parameterDefs[key].schema as z.ZodMiniType, value);
  return parsed.success ? (parsed.data as ParameterValue<K>) : undefined;
}

/** A stored value as the API shows it: amounts as decimal strings. */
export function toWire(key: ParameterKey, value: unknown): unknown {
  return parameterDefs[key].kind === 'money' && typeof value === 'number' ? formatMinor(value) : value;
}

/** A value from the API as it is stored, or undefined when its kind's schema refuses it. */
export function fromWire<K extends ParameterKey>(key: K, value: unknown): ParameterValue<K> | undefined {
  if (parameterDefs[key].kind === 'money') {
    const parsed = z.safeParse(amountOrZero, typeof value === 'number' ? String(value) : value);
    return parsed.success ? validParameter(key, parsed.data) : undefined;
  }
  if (typeof value === 'string' && parameterDefs[key].kind !== 'text') value = value.trim();
  return validParameter(key, value);
}

/** Whether changing `key` from `before` to `after` weakens a control: then a second platform user decides. */
export function needsFourEyes(key: ParameterKey, before: unknown, after: unknown): boolean {
  const def = parameterDefs[key];
  return 'fourEyes' in def ? def.fourEyes(before, after) : false;
}

/** The refusal message's locale key and values for a kind. */
export function invalidMessage(key: ParameterKey): [string, Record<string, unknown>] {
  const kind = parameterDefs[key].kind;
  const range = key === 'maker_checker_threshold' ? threshold : money;
  const params =
    kind === 'minutes'
      ? key === 'money_session_minutes'
        ? moneySession
        : minutes
      : kind === 'seconds'
        ? seconds
        : kind === 'text'
          ? text
          : { min: formatMinor(range.min), max: formatMinor(range.max) };
  return [`parameters.invalid.${kind}`, params];
}
