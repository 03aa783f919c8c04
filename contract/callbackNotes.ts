/**
 * What a callback attempt that got no HTTP answer records instead of the merchant's reply: the server
 * writes these notes (server/lib/outbound.ts) and the console reads them back to show them in the
 * reader's language (`attemptAnswer`, with the words under `screens.order.attemptNotes`). One
 * declaration of their text for both sides.
 */

/** What an address is, when it is not an ordinary public one. */
export const addressKinds = [
  'loopback',
  'private',
  'shared',
  'unique-local',
  'link-local',
  'metadata',
  'multicast',
  'broadcast',
  'unspecified',
  'reserved',
] as const;
export type AddressKind = (typeof addressKinds)[number];

/** The notes, as stored. */
export const callbackNotes = {
  timeout: 'timeout',
  invalidUrl: 'refused: invalid URL',
  credentials: 'refused: credentials in the URL',
  scheme: (scheme: string) => `refused: scheme ${scheme}`,
  address: (kind: AddressKind, address: string) => `refused: ${kind} address ${address}`,
};

export interface CallbackNote {
  key: 'timeout' | 'invalidUrl' | 'credentials' | 'scheme' | 'address';
  params?: Record<string, string>;
}

/** Reads a stored note back (null: not one of ours, such as a network error's own message). */
export function parseCallbackNote(text: string): CallbackNote | null {
  if (text === callbackNotes.timeout) return { key: 'timeout' };
  if (text === callbackNotes.invalidUrl) return { key: 'invalidUrl' };
  if (text === callbackNotes.credentials) return { key: 'credentials' };
  const scheme = /^refused: scheme (\S+)$/.exec(text);
  if (scheme) return { key: 'scheme', params: { scheme: scheme[1]! } };
  const address = /^refused: ([a-z-]+) address (\S+)$/.exec(text);
  if (address && (addressKinds as readonly string[]).includes(address[1]!))
    return { key: 'address', params: { kind: address[1]!, address: address[2]! } };
  return null;
}

/** The note of an attempt that got no HTTP answer; a merchant's reply is shown as it came, even when it reads like one. */
export const attemptNote = (httpStatus: number | null, response: string) =>
  httpStatus === null ? parseCallbackNote(response) : null;

/** An attempt's answer as the reader should see it: the merchant's reply as it came, or our note translated. */
export function attemptAnswer(
  httpStatus: number | null,
  response: string,
  t: (key: string, params?: Record<string, unknown>) => string,
): string {
  const note = attemptNote(httpStatus, response);
  if (!note) return response;
  const kind = note.params?.kind;
  return t(
    `screens.order.attemptNotes.${note.key}`,
    kind ? { ...note.params, kind: t(`screens.order.attemptNotes.kinds.${kind}`) } : note.params,
  );
}
