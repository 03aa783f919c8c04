import { Link } from 'wouter';
import { useT } from '../../lib/useT.ts';
import { Page } from '../Page.tsx';
import { PublicFrame } from './PublicFrame.tsx';

/**
 * 401 and 404: what happened and the ways out. Signed in, it is drawn inside the shell at the address
 * that was typed or followed (`inShell`), so the address stays to be read, corrected or reported.
 */
export function ErrorPage({ code, inShell = false }: { code: '401' | '404'; inShell?: boolean }) {
  const t = useT();
  const body = (
    <>
      <p className="error-code" aria-hidden="true">
        {code}
      </p>
      <p className="public-subtitle">{t(`errorPage.${code}.text`)}</p>
      {inShell && <p className="error-address">{window.location.pathname + window.location.search}</p>}
      <div className="form-actions center">
        <button type="button" className="button" onClick={() => history.back()}>
          {t('errorPage.back')}
        </button>
        <Link href="/dashboard" className="button primary">
          {t('errorPage.home')}
        </Link>
      </div>
    </>
  );
  return inShell ? (
    <Page title={t(`errorPage.${code}.title`)}>
      <div className="card error-card">{body}</div>
    </Page>
  ) : (
    <PublicFrame title={t(`errorPage.${code}.title`)}>{body}</PublicFrame>
  );
}
