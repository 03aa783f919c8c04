/**
 * A callback attempt that got no HTTP answer carries the server's own note instead of the merchant's
 * reply (see server/jobs/webhooks.ts and server/lib/outbound.ts): those the console has words for are
 * shown in the reader's language, anything else (a network error) as it is.
 */

/** The address kinds a refusal names (`refused: <kind> address <ip>`). */
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

export interface AttemptNote {
  key: string;
  params?: Record<string, string>;
}

/** The message key (under `screens.order.attemptNotes`) for an attempt's note, or null to show it raw. */
export function attemptNote(httpStatus: number | null, response: string): AttemptNote | null {
  // A merchant's reply is shown as it came, even when it happens to read like one of our notes.
  if (httpStatus !== null) return null;
  if (response === 'timeout') return { key: 'timeout' };
  if (response === 'refused: invalid URL') return { key: 'invalidUrl' };
  if (response === 'refused: credentials in the URL') return { key: 'credentials' };
  const scheme = /^refused: scheme (\S+)$/.exec(response);
  if (scheme) return { key: 'scheme', params: { scheme: scheme[1]! } };
  const address = /^refused: ([a-z-]+) address (\S+)$/.exec(response);
  if (address && (addressKinds as readonly string[]).includes(address[1]!))
    return { key: 'address', params: { kind: address[1]!, address: address[2]! } };
  return null;
}

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
