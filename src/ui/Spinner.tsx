import { useT } from '../lib/useT.ts';

export function Spinner() {
  const t = useT();
  return (
    <div className="spinner" role="status">
      <span className="sr-only">{t('app.loading')}</span>
    </div>
  );
}
