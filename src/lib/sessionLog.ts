import { atom } from 'nanostores';

/**
 * This browser tab's writes, newest first: every POST the console made (a form, a row's action, a bulk
 * action, an undo), with its result and the screen it was made from. Kept in sessionStorage, so a reload
 * keeps it and a new tab or a sign-out starts empty. The server's operation log is the record; this is the
 * person's own "what did I just do".
 */
export interface SessionEntry {
  id: number;
  /** Epoch ms. */
  at: number;
  /** The command's id (`receivingAccount.pause`), or the endpoint's outside one: named by `actionWords`. */
  action: string;
  ok: boolean;
  /** The refusal's errno and message, when it failed. */
  errno?: number;
  message?: string;
  /** Where it was done (path and query), to go back to. */
  where: string;
  /** The order it names, when its input names one. */
  orderNo?: string;
  /** Taken back by its undo. */
  undone?: boolean;
  /** The entry this write took back (an undo's own call). */
  reverses?: number;
}

const storageKey = 'console.sessionLog';
const kept = 200;

function read(): SessionEntry[] {
  try {
    const list = JSON.parse(sessionStorage.getItem(storageKey) ?? '[]') as unknown;
    return Array.isArray(list) ? (list as SessionEntry[]) : [];
  } catch {
    return [];
  }
}

export const $sessionLog = atom<SessionEntry[]>(typeof sessionStorage === 'undefined' ? [] : read());

function save(list: SessionEntry[]): void {
  $sessionLog.set(list);
  try {
    sessionStorage.setItem(storageKey, JSON.stringify(list));
  } catch {
    // storage full or refused: the list still lives for this page
  }
}

const orderNoOf = (input: unknown): string | undefined => {
  const v = (input as { orderNo?: unknown } | null)?.orderNo;
  return typeof v === 'string' ? v : undefined;
};

/** What runs now: a command (its writes are logged under its name) or an undo (under the undone one's). */
interface Acting {
  action: string;
  /** The entry an undo takes back. */
  reverses?: number;
}
let acting: Acting | undefined;

/** Names what runs from now on; answers what it replaces, to put back when it ends. */
export function actingAs(next: Acting | undefined): Acting | undefined {
  const before = acting;
  acting = next;
  return before;
}

/** Records a write's result (under its endpoint's name outside a command); answers the entry's id. */
export function recordWrite(
  endpointId: string,
  input: unknown,
  result: { errno?: number; message?: string },
): number {
  const action = acting?.action ?? endpointId;
  const reverses = acting?.reverses;
  const list = $sessionLog.get();
  const id = (list[0]?.id ?? 0) + 1;
  const orderNo = orderNoOf(input);
  const entry: SessionEntry = {
    id,
    at: Date.now(),
    action,
    ...(reverses === undefined ? {} : { reverses }),
    ok: result.errno === undefined,
    ...(result.errno === undefined ? {} : { errno: result.errno, message: result.message }),
    where: location.pathname + location.search,
    ...(orderNo ? { orderNo } : {}),
  };
  save([entry, ...list].slice(0, kept));
  return id;
}

/** The id of the newest entry (the write an undo offered just now takes back). */
export const newestEntry = (): number | undefined => $sessionLog.get()[0]?.id;

export function markUndone(id: number): void {
  save($sessionLog.get().map((e) => (e.id === id ? { ...e, undone: true } : e)));
}

/** Forgets the list (signing out). */
export function clearSessionLog(): void {
  save([]);
}
