import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { Field, FormActions, savedThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';

interface Props {
  role?: Contexts['role'];
  close: (result?: unknown) => void;
}

/** Name and description of a role; its permissions have their own dialog. */
export default function RoleForm({ role, close }: Props) {
  const t = useT();
  const form = useForm({ name: role?.name ?? '', description: role?.description ?? '' });
  const { values } = form;
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const saved = savedThenClose(close);
    if (role) form.send(endpoints.role.update, { id: role.id, ...values }, saved);
    else form.send(endpoints.role.create, values, saved);
  };
  return (
    <Modal
      title={t(role ? 'commands.role.edit.title' : 'commands.role.create.title')}
      onClose={() => close()}
    >
      <form className="form" onSubmit={onSubmit} noValidate>
        <Field label={t('screens.role.name')} {...form.field('name')} required />
        <Field label={t('screens.role.description')} {...form.field('description')} />
        <FormActions busy={form.busy} onCancel={() => close()} />
      </form>
    </Modal>
  );
}
