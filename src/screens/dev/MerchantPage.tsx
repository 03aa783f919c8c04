import { useStore } from '@nanostores/react';
import type { ReactNode } from 'react';
import type { endpoints, Output } from '../../../contract/index.ts';
import { $user } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { MerchantPicker, useMerchantParam } from '../../ui/MerchantPicker.tsx';
import { Spinner } from '../../ui/Spinner.tsx';
import { Page } from '../Page.tsx';
import { useMerchantInfo } from './merchantInfo.ts';

export type MerchantInfo = Output<typeof endpoints.merchant.info>;

/**
 * A page about one merchant's settings: a merchant user's own, or the one a platform user picks (in the
 * URL); its cards are drawn once the merchant is read.
 */
export function MerchantPage({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ReactNode;
  children: (m: MerchantInfo) => ReactNode;
}) {
  const t = useT();
  const platform = useStore($user)?.kind === 'platform';
  const [chosen, choose] = useMerchantParam();
  const ready = !platform || chosen !== undefined;
  const m = useMerchantInfo(platform ? chosen : undefined, ready).data;
  return (
    <Page title={title} actions={actions}>
      {platform && (
        <div className="merchant-bar">
          <MerchantPicker value={chosen} onValue={choose} />
        </div>
      )}
      {!ready ? (
        <p className="card muted">{t('screens.dev.chooseMerchant')}</p>
      ) : !m ? (
        <Spinner />
      ) : (
        <div className="cards">{children(m)}</div>
      )}
    </Page>
  );
}
