import type { ReactNode } from 'react';
import type { Endpoint, Input, Output } from '../../contract/endpoint.ts';
import { UnboundNotice, useCodeConfirmed } from './codeConfirmed.tsx';
import {
  CodeAndActions,
  type Form,
  ReasonField,
  RefusalNote,
  type SendOptions,
  toldThenClose,
  useForm,
} from './form.tsx';
import { Modal } from './Modal.tsx';
import { useOpeningFocus } from './openingFocus.ts';

/** The values every decision has: its reason (when it takes one) and the deciding user's Google code. */
type Base = { reason: string; code: string };

interface DecisionDialogProps<E extends Endpoint, V extends Record<string, string>> {
  /** The endpoint the decision calls, confirmed by the user's Google code. */
  endpoint: E;
  /** The dialog's title, also the confirming button's label. */
  title: string;
  description?: string;
  /** Danger for a refusal (reject), primary for the rest. */
  tone: 'primary' | 'danger';
  /** The reason field, when the decision takes one. */
  reason?: { label: string; hint?: string };
  /** The action's rules that refuse it (another person must decide…), said inside the dialog. */
  refusals?: readonly number[];
  /** Starting values of the decision's own fields beyond the reason and the code… */
  more?: V;
  /** …and those fields. */
  fields?: (form: Form<V & Base>) => ReactNode;
  /** The endpoint's input from the form's values (the code already trimmed). */
  input: (values: V & Base) => Input<E>;
  check?: SendOptions<E>['check'];
  /** Work before the call (uploading proofs), handed the input; answers the input to send. */
  prepare?: (input: Input<E>) => Promise<Input<E>>;
  /** The success toast's text for the endpoint's answer. */
  done: (answer: Output<E>) => string;
  /** What the user decides about, above the fields. */
  children?: ReactNode;
  close: (result?: unknown) => void;
}

/**
 * A platform user's decision on something waiting (an approval request, a settlement, a recharge):
 * its facts, a reason when it takes one, and the user's Google code; the action's refusals said inside
 * the dialog, which stays open for another try.
 */
export function DecisionDialog<E extends Endpoint, V extends Record<string, string> = Record<never, string>>({
  endpoint,
  title,
  description,
  tone,
  reason,
  refusals,
  more,
  fields,
  input,
  check,
  prepare,
  done,
  children,
  close,
}: DecisionDialogProps<E, V>) {
  const formRef = useOpeningFocus();
  const form = useForm<V & Base>({ ...(more as V), reason: '', code: '' });
  const { unbound, refusal, call } = useCodeConfirmed(form, refusals);

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    form.send(
      endpoint,
      input({ ...form.values, code: form.values.code.trim() }),
      toldThenClose(close, done),
      {
        blankIsMissing: true,
        check,
        via: async (ep, checked) => call(ep, prepare ? await prepare(checked) : checked),
      },
    );
  };

  return (
    <Modal title={title} description={description} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        {children}
        {unbound && <UnboundNotice close={() => close()} />}
        <RefusalNote refusal={refusal} />
        {fields?.(form)}
        {reason && (
          <ReasonField
            label={reason.label}
            value={form.values.reason}
            onValue={(v) => form.set('reason', v as (V & Base)['reason'])}
            error={form.errors.reason}
            hint={reason.hint}
          />
        )}
        <CodeAndActions
          form={form}
          onCancel={() => close()}
          submitLabel={title}
          tone={tone}
          endpoint={endpoint}
        />
      </form>
    </Modal>
  );
}
