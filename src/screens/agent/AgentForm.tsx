import type { Contexts } from '../../../commands/index.ts';
import { endpoints } from '../../../contract/index.ts';
import { useT } from '../../lib/useT.ts';
import { DecimalField, Field, FormActions, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';

interface Props {
  agent?: Contexts['agent'];
  close: (result?: unknown) => void;
}

/** Creates an agent (code drawn when left empty) or edits its name and commission. */
export default function AgentForm({ agent, close }: Props) {
  const t = useT();
  const editing = agent !== undefined;
  const form = useForm({
    name: agent?.name ?? '',
    code: '',
    commissionRate: agent?.commissionRate ?? '',
  });
  const { values } = form;

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    if (editing) {
      const input = { id: agent.id, name: values.name, commissionRate: values.commissionRate };
      return form.send(endpoints.agent.update, input, () => close(true));
    }
    const input = {
      name: values.name,
      commissionRate: values.commissionRate,
      ...(values.code.trim() ? { code: values.code } : {}),
    };
    form.send(endpoints.agent.create, input, (created) => close(created));
  };

  return (
    <Modal
      title={editing ? t('screens.agent.editTitle', { code: agent.code }) : t('commands.agent.create.title')}
      onClose={() => close()}
    >
      <form className="form" onSubmit={onSubmit} noValidate>
        <Field
          label={t('screens.agent.name')}
          {...form.field('name')}
          required
          autoFocus
          autoComplete="off"
        />
        {!editing && (
          <Field
            label={t('screens.agent.code')}
            {...form.field('code')}
            hint={t('screens.agent.codeHint')}
            autoComplete="off"
          />
        )}
        <DecimalField
          label={t('screens.agent.commissionRate')}
          {...form.field('commissionRate')}
          hint={t('screens.agent.commissionHint')}
          required
        />
        <FormActions busy={form.busy} onCancel={() => close()} />
      </form>
    </Modal>
  );
}
