import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { Field, useForm, validate } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';

interface Props {
  role?: Contexts['role'];
  close: (result?: unknown) => void;
}

/** Name and description of a role; its permissions have their own dialog. */
export default function RoleForm({ role, close }: Props) {
  const t = useT();
  const form = useForm({ name: role?.name ?? '', description: role?.description ?? '' });
  const { values, set, errors } = form;
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    void form.submit(async () => {
      if (role) {
        const input = { id: role.id, ...values };
        const checked = validate(endpoints.role.update.input, input);
        if (!checked.ok) return form.setErrors(checked.errors);
        await api(endpoints.role.update, input, { quiet: [422] });
      } else {
        const checked = validate(endpoints.role.create.input, values);
        if (!checked.ok) return form.setErrors(checked.errors);
        await api(endpoints.role.create, values, { quiet: [422] });
      }
      toast('success', t('app.saved'));
      close(true);
    });
  };
  return (
    <Modal
      title={t(role ? 'commands.role.edit.title' : 'commands.role.create.title')}
      onClose={() => close()}
    >
      <form className="form" onSubmit={onSubmit} noValidate>
        <Field
          label={t('screens.role.name')}
          value={values.name}
          onValue={(v) => set('name', v)}
          error={errors.name}
          required
        />
        <Field
          label={t('screens.role.description')}
          value={values.description}
          onValue={(v) => set('description', v)}
          error={errors.description}
        />
        <div className="form-actions">
          <button type="button" className="button" onClick={() => close()}>
            {t('app.cancel')}
          </button>
          <button type="submit" className="button primary" disabled={form.busy}>
            {t('app.save')}
          </button>
        </div>
      </form>
    </Modal>
  );
}
