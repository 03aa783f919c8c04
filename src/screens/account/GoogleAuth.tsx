import { useStore } from '@nanostores/react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { loadUser } from '../../lib/auth.ts';
import { toast } from '../../lib/notify.ts';
import { $user } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Field, useForm, validate } from '../../ui/form.tsx';
import { Spinner } from '../../ui/Spinner.tsx';
import { Page } from '../Page.tsx';

function Bind({ secret, qr, onDone }: { secret: string; qr?: string | undefined; onDone: () => void }) {
  const t = useT();
  const form = useForm({ code: '', password: '' });
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = { secret, code: form.values.code.trim(), password: form.values.password };
    const checked = validate(endpoints.auth.googleBind.input, input);
    if (!checked.ok) return form.setErrors(checked.errors);
    void form.submit(async () => {
      await api(endpoints.auth.googleBind, input, { quiet: [422] });
      toast('success', t('screens.google.bound'));
      onDone();
    });
  };
  return (
    <div className="google-bind">
      <ol className="steps">
        <li>{t('screens.google.step1')}</li>
        <li>{t('screens.google.step2')}</li>
        <li>{t('screens.google.step3')}</li>
      </ol>
      <div className="google-qr">
        {qr && <img src={qr} alt={t('screens.google.qrAlt')} width={180} height={180} />}
        <div>
          <p className="muted">{t('screens.google.secret')}</p>
          <code className="secret" data-testid="google-secret">
            {secret}
          </code>
        </div>
      </div>
      <form className="form" onSubmit={onSubmit} noValidate>
        <Field
          label={t('screens.google.code')}
          value={form.values.code}
          onValue={(v) => form.set('code', v)}
          error={form.errors.code}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          required
        />
        <Field
          label={t('screens.google.password')}
          type="password"
          autoComplete="current-password"
          value={form.values.password}
          onValue={(v) => form.set('password', v)}
          error={form.errors.password}
          hint={t('screens.google.bindHint')}
          required
        />
        <div className="form-actions">
          <button type="submit" className="button primary" disabled={form.busy}>
            {t('screens.google.bind')}
          </button>
        </div>
      </form>
    </div>
  );
}

function Unbind({ onDone }: { onDone: () => void }) {
  const t = useT();
  const form = useForm({ code: '', password: '' });
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const checked = validate(endpoints.auth.googleUnbind.input, form.values);
    if (!checked.ok) return form.setErrors(checked.errors);
    void form.submit(async () => {
      await api(endpoints.auth.googleUnbind, form.values, { quiet: [422] });
      toast('success', t('screens.google.unbound'));
      onDone();
    });
  };
  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <p className="muted">{t('screens.google.unbindHint')}</p>
      <Field
        label={t('screens.google.code')}
        value={form.values.code}
        onValue={(v) => form.set('code', v)}
        error={form.errors.code}
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={6}
        required
      />
      <Field
        label={t('login.password')}
        type="password"
        autoComplete="current-password"
        value={form.values.password}
        onValue={(v) => form.set('password', v)}
        error={form.errors.password}
        required
      />
      <div className="form-actions">
        <button type="submit" className="button danger" disabled={form.busy}>
          {t('screens.google.unbind')}
        </button>
      </div>
    </form>
  );
}

/** Google Authenticator: bind with the QR code and the password, or unbind with a code and the password. */
export default function GoogleAuth() {
  const t = useT();
  const user = useStore($user);
  const client = useQueryClient();
  const info = useQuery({
    queryKey: ['google-bind-info'],
    queryFn: () => api(endpoints.auth.googleBindInfo, {}),
  });
  const done = () => {
    void client.invalidateQueries({ queryKey: ['google-bind-info'] });
    void loadUser();
  };
  return (
    <Page title={t('commands.auth.google.title')}>
      <section className="card narrow">
        {user?.mustBindGoogle && !info.data?.bound && (
          <p className="notice">{t('screens.google.required')}</p>
        )}
        {!info.data ? (
          <Spinner />
        ) : info.data.bound ? (
          <>
            <p>
              <Badge tone="ok">{t('screens.admin.bound')}</Badge> {t('screens.google.boundText')}
            </p>
            <Unbind onDone={done} />
          </>
        ) : info.data.secret ? (
          <Bind secret={info.data.secret} qr={info.data.qr} onDone={done} />
        ) : null}
      </section>
    </Page>
  );
}
