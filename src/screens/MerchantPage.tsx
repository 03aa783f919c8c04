import { useStore } from '@nanostores/react';
import type { ReactNode } from 'react';
import type { endpoints, Output } from '../../contract/index.ts';
import { $user } from '../lib/session.ts';
import { useT } from '../lib/useT.ts';
import { MerchantPicker, useMerchantParam } from '../ui/MerchantPicker.tsx';
import { Spinner } from '../ui/Spinner.tsx';
import { useMerchantInfo } from './dev/merchantInfo.ts';
import { Page } from './Page.tsx';

export type MerchantInfo = Output<typeof endpoints.merchant.info>;

/**
 * A page about one merchant: a merchant user's own (no id: it is never sent), or the one a platform user
 * picks (in the URL); until one is picked, `chooseText`.
 */
export function MerchantScope({
  title,
  actions,
  chooseText,
  children,
}: {
  title: string;
  actions?: ReactNode;
  chooseText: string;
  children: (merchantId: number | undefined) => ReactNode;
}) {
  const platform = useStore($user)?.kind === 'platform';
  const [chosen, choose] = useMerchantParam();
  const ready = !platform || chosen !== undefined;
  return (
    <Page title={title} actions={actions}>
      {platform && (
        <div className="merchant-bar">
          <MerchantPicker value={chosen} onValue={choose} />
        </div>
      )}
      {ready ? children(platform ? chosen : undefined) : <p className="card muted">{chooseText}</p>}
    </Page>
  );
}

/** A merchant's settings page: its cards drawn once the merchant is read. */
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
  return (
    <MerchantScope title={title} actions={actions} chooseText={t('screens.dev.chooseMerchant')}>
      {(merchantId) => <MerchantCards merchantId={merchantId}>{children}</MerchantCards>}
    </MerchantScope>
  );
}

function MerchantCards({
  merchantId,
  children,
}: {
  merchantId: number | undefined;
  children: (m: MerchantInfo) => ReactNode;
}) {
  const m = useMerchantInfo(merchantId).data;
  return m ? <div className="cards">{children(m)}</div> : <Spinner />;
}
