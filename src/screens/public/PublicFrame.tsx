import { useStore } from '@nanostores/react';
import type { ReactNode } from 'react';
import { loadLanguage } from '../../lib/i18n.ts';
import { $settings, languages, setLanguageSetting } from '../../lib/settings.ts';
import { useT } from '../../lib/useT.ts';

export function LanguageSwitch() {
  const t = useT();
  const { language } = useStore($settings);
  return (
    <fieldset className="segmented" aria-label={t('app.language')}>
      {languages.map((l) => (
        <button
          key={l}
          type="button"
          aria-pressed={l === language}
          onClick={() => {
            setLanguageSetting(l);
            void loadLanguage(l);
          }}
        >
          {t(`app.languages.${l}`)}
        </button>
      ))}
    </fieldset>
  );
}

/** The frame of the pages one sees before signing in. */
export function PublicFrame({
  title,
  subtitle,
  children,
}: {
  title: string;
  subtitle?: string;
  children: ReactNode;
}) {
  const t = useT();
  return (
    <div className="public">
      <header className="public-top">
        <span className="brand">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">{t('app.name')}</span>
        </span>
        <LanguageSwitch />
      </header>
      <main className="public-main">
        <div className="public-card">
          <h1 className="public-title">{title}</h1>
          {subtitle && <p className="public-subtitle">{subtitle}</p>}
          {children}
        </div>
      </main>
    </div>
  );
}
