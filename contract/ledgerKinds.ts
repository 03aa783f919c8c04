/**
 * The ledger's entry kinds (`journal_entries.kind`): what caused an entry, each declared once with its
 * hold rule and read in words through one label table (`ledger.kinds.<kind>`, both languages; the test
 * beside this file checks every kind has its label). A cause posts each stored kind once
 * (`(ref_type, ref_id, kind)` is unique), so a cause that holds money again numbers its kind.
 */

/**
 * How a cause numbers a kind it may post more than once:
 * - `once`: posted at most once per cause (`payin_paid`);
 * - `perHold`: every hold of the cause numbered from 1 (`payout_freeze_1`, `payout_freeze_2` after a retry);
 * - `perChange`: the first plain, each later change numbered from 2 (`settlement_hold`, `settlement_hold_2`).
 */
export type HoldRule = 'once' | 'perHold' | 'perChange';

export const entryKinds = {
  /** A pay-in paid: its net to the merchant's collection, the fee to the platform. */
  payin_paid: 'once',
  /** A payout's hold opened (amount and fee frozen), again after each retry. */
  payout_freeze: 'perHold',
  /** A payout's hold given back (failed, never created). */
  payout_release: 'perHold',
  /** A payout's hold spent: paid out. */
  payout_success: 'once',
  /** The merchant moved collection money to its payout balance. */
  wallet_transfer: 'once',
  recharge: 'once',
  /** A settlement's hold opened, then changed (an edited amount, a lower audit amount). */
  settlement_hold: 'perChange',
  settlement_release: 'once',
  settlement_paid: 'once',
  /** A T+N run released a merchant's pending collection. */
  tn_release: 'once',
  /** A balance adjusted by hand. */
  adjustment: 'once',
  /** An agent's commission paid out. */
  commission_paid: 'once',
  /**
   * A frozen receiving account's share held from one merchant (docs/MONEY-BACK.md section 3); its cause is
   * the freeze's line of that merchant, which holds once.
   */
  freeze_hold: 'once',
  /** What the bank released of a freeze, back to the wallets the line's hold came from. */
  freeze_release: 'once',
  /** What the bank wrote off of a freeze: the line's hold spent to channel clearing. */
  freeze_written_off: 'once',
  /** A dispute's amount held from the merchant at opening (docs/MONEY-BACK.md section 2). */
  dispute_hold: 'once',
  /** A dispute won or withdrawn: its hold back to the wallets it came from. */
  dispute_release: 'once',
  /** A chargeback lost: its hold spent to channel clearing (the payer's bank took the money). */
  dispute_lost: 'once',
  /**
   * A complaint or wrong payment lost: its hold (and what the platform advances for the unheld part) to
   * the merchant's collection balance, from which the refund to the payer is held at once.
   */
  dispute_refund: 'once',
  /** What a lost case could never hold: the merchant's debt. */
  dispute_debt: 'once',
} as const satisfies Record<string, HoldRule>;

export type EntryKind = keyof typeof entryKinds;

/** The kinds a cause numbers (`perHold`, `perChange`). */
export type HeldKind = {
  [K in EntryKind]: (typeof entryKinds)[K] extends 'once' ? never : K;
}[EntryKind];

/** A kind as the journal stores it: a declared kind, or a held one with its number. */
export type StoredEntryKind = EntryKind | `${HeldKind}_${number}`;

const isEntryKind = (kind: string): kind is EntryKind => Object.hasOwn(entryKinds, kind);

/** The stored kind of a cause's `n`-th hold (n from 1), by the kind's hold rule. */
export function heldKind(kind: HeldKind, n: number): StoredEntryKind {
  return entryKinds[kind] === 'perChange' && n === 1 ? kind : `${kind}_${n}`;
}

/** A stored kind read back: its declared kind and hold number (1 when plain); null when not declared. */
export function readEntryKind(stored: string): { kind: EntryKind; n: number } | null {
  if (isEntryKind(stored)) return { kind: stored, n: 1 };
  const numbered = /^([a-z_]+)_(\d+)$/.exec(stored);
  const kind = numbered?.[1] ?? '';
  if (!isEntryKind(kind) || entryKinds[kind] === 'once') return null;
  return { kind, n: Number(numbered?.[2]) };
}

/** The locale key of a kind's label. */
export const entryKindLabelKey = (kind: EntryKind) => `ledger.kinds.${kind}`;

/**
 * A stored kind in the reader's language: a later hold shows its number after the name
 * (`Settlement hold #2`); a kind not declared here (a test's own) shows as stored.
 */
export function entryKindLabel(t: (key: string) => string, stored: string): string {
  const read = readEntryKind(stored);
  if (!read) return stored;
  const name = t(entryKindLabelKey(read.kind));
  return read.n > 1 ? `${name} #${read.n}` : name;
}
