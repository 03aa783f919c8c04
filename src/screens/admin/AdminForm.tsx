import type { Contexts } from '../../../commands/index.ts';
import { allows, endpoints } from '../../../contract/index.ts';
import { roleName } from '../../lib/names.ts';
import { $grants, $user } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { useChoices } from '../../ui/choices.ts';
import { Field, FormActions, NewPasswordField, savedThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';

interface Props {
  user?: Contexts['admin'];
  close: (result?: unknown) => void;
}

/** Create an administrator, or edit one (a blank password keeps the current one). */
export default function AdminForm({ user, close }: Props) {
  const t = useT();
  const editing = user !== undefined;
  // One's own password changes in the profile, with the current one: the server refuses it here.
  const self = editing && $user.get()?.id === user.id;
  const canListRoles = allows($grants.get(), [endpoints.role.list]);
  const roles = useChoices(endpoints.role.list, {}, { enabled: canListRoles });
  const form = useForm({
    username: user?.username ?? '',
    nickname: user?.nickname ?? '',
    email: user?.email ?? '',
    password: '',
    roleIds: user?.roles.map((r) => r.id) ?? ([] as number[]),
  });
  const { values, set, errors } = form;

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const saved = savedThenClose(close);
    if (!editing) return form.send(endpoints.admin.create, values, saved);
    const input = {
      id: user.id,
      nickname: values.nickname,
      email: values.email,
      ...(values.password ? { password: values.password } : {}),
      ...(canListRoles ? { roleIds: values.roleIds } : {}),
    };
    form.send(endpoints.admin.update, input, saved);
  };

  return (
    <Modal
      title={t(editing ? 'commands.admin.edit.title' : 'commands.admin.create.title')}
      onClose={() => close()}
    >
      <form className="form" onSubmit={onSubmit} noValidate>
        <Field
          label={t('screens.admin.username')}
          {...form.field('username')}
          disabled={editing}
          autoComplete="off"
          required
        />
        <Field label={t('screens.admin.nickname')} {...form.field('nickname')} required />
        <Field label={t('screens.admin.email')} type="email" {...form.field('email')} />
        {self ? (
          <p className="field-hint">{t('screens.admin.ownPassword')}</p>
        ) : (
          <NewPasswordField
            label={t('screens.admin.password')}
            {...form.field('password')}
            hint={t(editing ? 'screens.admin.passwordKeep' : 'validation.adminPasswordRule')}
            required={!editing}
          />
        )}
        {canListRoles && (
          <fieldset className="field">
            <legend>{t('screens.admin.roles')}</legend>
            <div className="checks">
              {(roles.data?.list ?? []).map((r) => (
                <label key={r.id} className="check">
                  <input
                    type="checkbox"
                    checked={values.roleIds.includes(r.id)}
                    onChange={(e) =>
                      set(
                        'roleIds',
                        e.target.checked
                          ? [...values.roleIds, r.id]
                          : values.roleIds.filter((x) => x !== r.id),
                      )
                    }
                  />
                  {roleName(r.name)}
                </label>
              ))}
            </div>
            {errors.roleIds && <p className="field-error">{errors.roleIds}</p>}
          </fieldset>
        )}
        <FormActions busy={form.busy} onCancel={() => close()} />
      </form>
    </Modal>
  );
}
