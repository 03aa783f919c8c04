import { useState } from 'react';
import type { Contexts } from '../../../commands/index.ts';
import { endpoints, type Input } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { useT } from '../../lib/useT.ts';
import { Field } from '../../ui/form.tsx';
import { apiPathErrors, type PathErrors, validatePaths } from '../../ui/formPaths.ts';
import { Modal } from '../../ui/Modal.tsx';

interface Props {
  agent?: Contexts['agent'];
  close: (result?: unknown) => void;
}

/** Creates an agent (code drawn when left empty) or edits its name and commission. */
export default function AgentForm({ agent, close }: Props) {
  const t = useT();
  const editing = agent !== undefined;
  const [values, setValues] = useState({
    name: agent?.name ?? '',
    code: '',
    commissionRate: agent?.commissionRate ?? '',
  });
  const [errors, setErrors] = useState<PathErrors>({});
  const [busy, setBusy] = useState(false);
  const set = (key: keyof typeof values) => (value: string) => {
    setValues((v) => ({ ...v, [key]: value }));
    setErrors(({ [key]: _, ...rest }) => rest);
  };

  const onSubmit = async (e: React.FormEvent) => {
    e.preventDefault();
    const input = editing
      ? { id: agent.id, name: values.name, commissionRate: values.commissionRate }
      : {
          name: values.name,
          commissionRate: values.commissionRate,
          ...(values.code.trim() ? { code: values.code } : {}),
        };
    const checked = editing
      ? validatePaths(endpoints.agent.update.input, input)
      : validatePaths(endpoints.agent.create.input, input);
    if (!checked.ok) return setErrors(checked.errors);
    setBusy(true);
    try {
      if (editing) {
        await api(endpoints.agent.update, input as Input<typeof endpoints.agent.update>, { quiet: [422] });
        close(true);
      } else {
        close(
          await api(endpoints.agent.create, input as Input<typeof endpoints.agent.create>, { quiet: [422] }),
        );
      }
    } catch (error) {
      const fields = apiPathErrors(error);
      if (fields) setErrors(fields);
      setBusy(false);
    }
  };

  return (
    <Modal
      title={editing ? t('screens.agent.editTitle', { code: agent.code }) : t('commands.agent.create.title')}
      onClose={() => close()}
    >
      <form className="form" onSubmit={onSubmit} noValidate>
        <Field
          label={t('screens.agent.name')}
          value={values.name}
          onValue={set('name')}
          error={errors.name}
          required
          autoFocus
          autoComplete="off"
        />
        {!editing && (
          <Field
            label={t('screens.agent.code')}
            value={values.code}
            onValue={set('code')}
            error={errors.code}
            hint={t('screens.agent.codeHint')}
            autoComplete="off"
          />
        )}
        <Field
          label={t('screens.agent.commissionRate')}
          value={values.commissionRate}
          onValue={set('commissionRate')}
          error={errors.commissionRate}
          hint={t('screens.agent.commissionHint')}
          inputMode="decimal"
          required
        />
        <div className="form-actions">
          <button type="button" className="button" onClick={() => close()}>
            {t('app.cancel')}
          </button>
          <button type="submit" className="button primary" disabled={busy}>
            {t('app.save')}
          </button>
        </div>
      </form>
    </Modal>
  );
}
