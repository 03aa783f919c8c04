import { navigate } from 'wouter/use-browser-location';
import { logoutAllAction as logoutAll } from '../../../commands/account.ts';
import { endpoints } from '../../../contract/index.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { commandTitle, runCommand } from '../../shell/runtime.ts';
import { CurrentPasswordField, FormActions, NewPasswordField, useForm } from '../../ui/form.tsx';
import { Page } from '../Page.tsx';

/**
 * Own password: old one, then a new one by the set-password rule, typed twice. Below it, signing out
 * everywhere (every session and remembered device), for a device lost or a session in other hands.
 */
export default function ChangePassword() {
  const t = useT();
  const form = useForm({ oldPassword: '', newPassword: '', confirmPassword: '' });
  const { values } = form;
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    form.send(endpoints.auth.changePassword, values, () => {
      toast('success', t('screens.password.changed'));
      navigate('/dashboard');
    });
  };
  return (
    <Page title={t('commands.auth.password.title')}>
      <form className="form card narrow" onSubmit={onSubmit} noValidate>
        <CurrentPasswordField label={t('screens.password.old')} {...form.field('oldPassword')} />
        <NewPasswordField
          label={t('screens.password.new')}
          {...form.field('newPassword')}
          hint={t('validation.passwordRule')}
        />
        <NewPasswordField label={t('screens.password.confirm')} {...form.field('confirmPassword')} />
        <FormActions busy={form.busy} />
      </form>
      <section className="card narrow" aria-labelledby="sign-out-all">
        <h2 className="card-title" id="sign-out-all">
          {commandTitle(logoutAll)}
        </h2>
        <p className="muted">{t('screens.password.signOutAllText')}</p>
        <div className="form-actions">
          <button type="button" className="button danger" onClick={() => void runCommand(logoutAll)}>
            {commandTitle(logoutAll)}
          </button>
        </div>
      </section>
    </Page>
  );
}
