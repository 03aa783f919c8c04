/**
 * A callback attempt that got no HTTP answer carries the server's own note instead of the merchant's
 * reply (see server/jobs/webhooks.ts and server/lib/outbound.ts): those the console has words for are
 * shown in the reader's language, anything else (a network error) as it is.
 */
import { parseCallbackNote } from '../../../contract/callbackNotes.ts';

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
