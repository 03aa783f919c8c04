import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { navigate } from 'wouter/use-browser-location';
import { type Endpoint, endpoints, errno, type Input } from '../../../contract/index.ts';
import { api, isApiError } from '../../lib/api.ts';
import { deviceTokenFor, rememberDevice, startSession } from '../../lib/auth.ts';
import { useT } from '../../lib/useT.ts';
import { CheckField } from '../../ui/fields.tsx';
import { CurrentPasswordField, codeDigits, Field, OneTimeCodeField, useForm } from '../../ui/form.tsx';
import { PublicFrame } from './PublicFrame.tsx';

type Step = { kind: 'password' } | { kind: 'google' | 'email'; ticket: string; sentTo?: string | undefined };

/** Only paths inside the console: never an absolute URL from the query string. */
function safeRedirect(value: string | null): string {
  return value?.startsWith('/') && !value.startsWith('//') ? value : '/dashboard';
}

/**
 * Sign-in: password first; when the server answers 1002 the Google (or e-mail) code step appears in
 * the same form, with the 30-day skip for this device remembered per username.
 */
export default function Login() {
  const t = useT();
  const [params] = useSearchParams();
  const [step, setStep] = useState<Step>({ kind: 'password' });
  const [remember, setRemember] = useState(false);
  const form = useForm({ username: '', password: '', code: '' });
  const { values, set, errors } = form;
  const codeRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (step.kind !== 'password') codeRef.current?.focus();
  }, [step]);

  const finish = async (session: { token: string; deviceToken?: string | undefined }) => {
    const username = values.username.trim();
    if (remember) rememberDevice(username, session.deviceToken);
    const user = await startSession(session.token);
    if (!user) return;
    navigate(user.mustBindGoogle && !user.googleBound ? '/code' : safeRedirect(params.get('redirect')), {
      replace: true,
    });
  };

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const username = values.username.trim();
    if (step.kind === 'password') {
      const input = { username, password: values.password, deviceToken: deviceTokenFor(username) };
      return form.send(
        endpoints.auth.loginPassword,
        input,
        async (answer) => {
          if ('token' in answer) await finish(answer);
        },
        {
          via: async (endpoint, checked) => {
            try {
              return await api(endpoint, checked, { quiet: [errno.invalid] });
            } catch (error) {
              if (!isApiError(error, errno.secondStepNeeded)) throw error;
              const data = error.data as { ticket: string; step: 'google' | 'email'; sentTo?: string };
              setStep({ kind: data.step, ticket: data.ticket, sentTo: data.sentTo });
              return undefined;
            }
          },
        },
      );
    }
    const code = values.code.trim();
    // A ticket gone stale (expired, used) starts the sign-in over.
    const restartWhenStale = async <E extends Endpoint>(endpoint: E, input: Input<E>) => {
      try {
        return await api(endpoint, input, { quiet: [errno.invalid] });
      } catch (error) {
        if (isApiError(error, errno.ticketInvalid)) {
          set('code', '');
          setStep({ kind: 'password' });
        }
        throw error;
      }
    };
    if (step.kind === 'google')
      form.send(endpoints.auth.loginGoogleCode, { ticket: step.ticket, code, remember }, finish, {
        via: restartWhenStale,
      });
    else
      form.send(endpoints.auth.loginEmailCode, { ticket: step.ticket, code }, finish, {
        via: restartWhenStale,
      });
  };

  const second = step.kind !== 'password';
  return (
    <PublicFrame title={t('login.title')} subtitle={t('login.subtitle')}>
      <form className="form" onSubmit={onSubmit} noValidate aria-label={t('login.title')}>
        <Field
          label={t('login.username')}
          {...form.field('username')}
          autoComplete="username"
          autoFocus
          readOnly={second}
          required
        />
        <CurrentPasswordField label={t('login.password')} {...form.field('password')} readOnly={second} />
        {second && (
          <>
            <OneTimeCodeField
              ref={codeRef}
              label={t(step.kind === 'google' ? 'login.googleCode' : 'login.emailCode')}
              value={values.code}
              onValue={(v) => set('code', codeDigits(v))}
              error={errors.code}
              hint={
                step.kind === 'email' && step.sentTo
                  ? t('login.codeSentTo', { to: step.sentTo })
                  : t('login.codeHint')
              }
            />
            {step.kind === 'google' && (
              <CheckField label={t('login.remember')} checked={remember} onChecked={setRemember} />
            )}
          </>
        )}
        <button type="submit" className="button primary block" disabled={form.busy}>
          {t(second ? 'login.verify' : 'login.submit')}
        </button>
        <div className="public-links">
          {second ? (
            <button
              type="button"
              className="link"
              onClick={() => {
                set('code', '');
                setStep({ kind: 'password' });
              }}
            >
              {t('login.back')}
            </button>
          ) : (
            <Link href="/reset" className="link">
              {t('login.forgot')}
            </Link>
          )}
        </div>
      </form>
    </PublicFrame>
  );
}
