import { useStore } from '@nanostores/react';
import { useQuery } from '@tanstack/react-query';
import { allows, endpoints, errno } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { $grants, $user } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { SelectField } from '../../ui/fields.tsx';
import { FormActions, RefusalNote, toldThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import type { Dispute } from './parts.tsx';

/** Said inside the dialog: it was decided meanwhile. */
const refusals = [errno.conflict, errno.notFound];

/**
 * Who answers for an open case: nobody, the signed-in user, or (for a user who may read the platform's
 * users) any active one of them.
 */
export default function AssignDialog({
  dispute,
  close,
}: {
  dispute: Dispute;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const user = useStore($user);
  const grants = useStore($grants);
  const users = useQuery({
    queryKey: ['dispute-owners'],
    queryFn: ({ signal }) => api(endpoints.admin.list, { pageSize: 100, status: 'active' }, { signal }),
    enabled: allows(grants, [endpoints.admin.list]),
    staleTime: 60_000,
  });
  const formRef = useOpeningFocus();
  const form = useForm({ ownerId: dispute.ownerId === null ? '' : String(dispute.ownerId) });
  const { refusal, call } = useCodeConfirmed(form, refusals);
  const options = [
    { value: '', label: t('screens.dispute.nobody') },
    ...(user ? [{ value: String(user.id), label: t('screens.dispute.me', { name: user.username }) }] : []),
    ...(users.data?.list ?? [])
      .filter((u) => u.id !== user?.id)
      .map((u) => ({
        value: String(u.id),
        label: u.nickname ? `${u.username} · ${u.nickname}` : u.username,
      })),
  ];
  // The current owner stays offered even when the list above does not hold them.
  if (dispute.ownerId !== null && !options.some((o) => o.value === String(dispute.ownerId)))
    options.push({ value: String(dispute.ownerId), label: dispute.owner ?? `#${dispute.ownerId}` });
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const { ownerId } = form.values;
    form.send(
      endpoints.dispute.assign,
      { id: dispute.id, ownerId: ownerId === '' ? null : Number(ownerId) },
      toldThenClose(close, (done) =>
        done.owner
          ? t('screens.dispute.assigned', { disputeNo: done.disputeNo, owner: done.owner })
          : t('screens.dispute.unassigned', { disputeNo: done.disputeNo }),
      ),
      { via: call },
    );
  };
  return (
    <Modal
      title={t('commands.dispute.assign.title')}
      description={t('screens.dispute.assignText', { disputeNo: dispute.disputeNo })}
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <RefusalNote refusal={refusal} />
        <SelectField label={t('screens.dispute.owner')} {...form.field('ownerId')} options={options} />
        <FormActions
          busy={form.busy}
          onCancel={() => close()}
          submitLabel={t('commands.dispute.assign.title')}
        />
      </form>
    </Modal>
  );
}
