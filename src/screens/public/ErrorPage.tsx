import { Link } from 'wouter';
import { useT } from '../../lib/useT.ts';
import { PublicFrame } from './PublicFrame.tsx';

/** 401 and 404: what happened and the ways out. */
export function ErrorPage({ code }: { code: '401' | '404' }) {
  const t = useT();
  return (
    <PublicFrame title={t(`errorPage.${code}.title`)}>
      <p className="error-code" aria-hidden="true">
        {code}
      </p>
      <p className="public-subtitle">{t(`errorPage.${code}.text`)}</p>
      <div className="form-actions center">
        <button type="button" className="button" onClick={() => history.back()}>
          {t('errorPage.back')}
        </button>
        <Link href="/dashboard" className="button primary">
          {t('errorPage.home')}
        </Link>
      </div>
    </PublicFrame>
  );
}
