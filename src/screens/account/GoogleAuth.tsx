import { useStore } from '@nanostores/react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { loadUser } from '../../lib/auth.ts';
import { toast } from '../../lib/notify.ts';
import { $user } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { Field, type Form, FormActions, GoogleCodeField, useForm } from '../../ui/form.tsx';
import { Spinner } from '../../ui/Spinner.tsx';
import { Page } from '../Page.tsx';

type CodeAndPasswordForm = Form<{ code: string; password: string }>;

/** The Google code and the password: binding and unbinding both ask for them. */
function CodeAndPassword({
  form,
  passwordLabel,
  hint,
}: {
  form: CodeAndPasswordForm;
  passwordLabel: string;
  hint?: string;
}) {
  const t = useT();
  return (
    <>
      <GoogleCodeField label={t('screens.google.code')} {...form.field('code')} />
      <Field
        label={passwordLabel}
        type="password"
        autoComplete="current-password"
        {...form.field('password')}
        hint={hint}
        required
      />
    </>
  );
}

function Bind({ secret, qr, onDone }: { secret: string; qr?: string | undefined; onDone: () => void }) {
  const t = useT();
  const form = useForm({ code: '', password: '' });
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const input = { secret, code: form.values.code.trim(), password: form.values.password };
    form.send(endpoints.auth.googleBind, input, () => {
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
        <CodeAndPassword
          form={form}
          passwordLabel={t('screens.google.password')}
          hint={t('screens.google.bindHint')}
        />
        <FormActions busy={form.busy} submitLabel={t('screens.google.bind')} />
      </form>
    </div>
  );
}

function Unbind({ onDone }: { onDone: () => void }) {
  const t = useT();
  const form = useForm({ code: '', password: '' });
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    form.send(endpoints.auth.googleUnbind, form.values, () => {
      toast('success', t('screens.google.unbound'));
      onDone();
    });
  };
  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <p className="muted">{t('screens.google.unbindHint')}</p>
      <CodeAndPassword form={form} passwordLabel={t('login.password')} />
      <FormActions busy={form.busy} submitLabel={t('screens.google.unbind')} tone="danger" />
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
