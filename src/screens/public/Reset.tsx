import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { navigate } from 'wouter/use-browser-location';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { codeDigits, Field, NewPasswordField, OneTimeCodeField, useForm, validate } from '../../ui/form.tsx';
import { PublicFrame } from './PublicFrame.tsx';

const resendSeconds = 60;

/** Password reset by a six-digit e-mail code. */
export default function Reset() {
  const t = useT();
  const form = useForm({ username: '', code: '', password: '', confirmPassword: '' });
  const { values, set, errors } = form;
  const [sent, setSent] = useState(false);
  const [wait, setWait] = useState(0);
  const [sending, setSending] = useState(false);

  useEffect(() => {
    if (wait <= 0) return;
    const timer = window.setTimeout(() => setWait(wait - 1), 1000);
    return () => window.clearTimeout(timer);
  }, [wait]);

  const sendCode = async () => {
    const username = values.username.trim();
    const checked = validate(endpoints.auth.sendEmailCode.input, { username, purpose: 'reset' });
    if (!checked.ok) return form.setErrors(checked.errors);
    setSending(true);
    try {
      // The same answer whether or not the account exists or has an address: the screen can say no more.
      await api(endpoints.auth.sendEmailCode, { username, purpose: 'reset' }, { quiet: [422] });
      setSent(true);
      setWait(resendSeconds);
    } catch {
      // shown by the API client
    } finally {
      setSending(false);
    }
  };

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = { ...values, username: values.username.trim(), code: values.code.trim() };
    form.send(endpoints.auth.resetPassword, input, () => {
      toast('success', t('reset.done'));
      navigate('/login');
    });
  };

  return (
    <PublicFrame title={t('reset.title')} subtitle={t('reset.subtitle')}>
      <form className="form" onSubmit={onSubmit} noValidate aria-label={t('reset.title')}>
        <Field label={t('login.username')} {...form.field('username')} autoComplete="username" required />
        <div className="field-row">
          <OneTimeCodeField
            label={t('reset.code')}
            value={values.code}
            onValue={(v) => set('code', codeDigits(v))}
            error={errors.code}
            hint={sent ? t('reset.sent') : undefined}
          />
          <button
            type="button"
            className="button"
            disabled={sending || wait > 0}
            onClick={() => void sendCode()}
          >
            {wait > 0 ? t('reset.resendIn', { n: wait }) : t('reset.send')}
          </button>
        </div>
        <NewPasswordField
          label={t('screens.password.new')}
          {...form.field('password')}
          hint={t('validation.passwordRule')}
        />
        <NewPasswordField label={t('screens.password.confirm')} {...form.field('confirmPassword')} />
        <button type="submit" className="button primary block" disabled={form.busy}>
          {t('reset.submit')}
        </button>
        <div className="public-links">
          <Link href="/login" className="link">
            {t('reset.backToLogin')}
          </Link>
        </div>
      </form>
    </PublicFrame>
  );
}
