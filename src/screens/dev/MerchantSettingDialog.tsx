import type { ComponentType } from 'react';
import { useT } from '../../lib/useT.ts';
import { Modal } from '../../ui/Modal.tsx';
import { Spinner } from '../../ui/Spinner.tsx';
import { type MerchantInfo, useMerchantInfo } from './merchantInfo.ts';

/** What opens a merchant's setting: the merchant a platform user chose, or none for a merchant user's own. */
export interface MerchantSettingProps {
  merchantId?: number | undefined;
  close: (result?: unknown) => void;
}

/** What a setting's form is given: the merchant's settings as they are now. */
export type SettingFormProps = MerchantSettingProps & { current: MerchantInfo };

/**
 * The dialog that edits one of a merchant's own settings (its callback URL, payout whitelist, surcharge),
 * declared by its title's and description's message keys and its form: the form opens on the merchant's
 * current settings, a spinner until they have loaded.
 */
export function merchantSettingDialog(
  titleKey: string,
  descriptionKey: string,
  SettingForm: ComponentType<SettingFormProps>,
) {
  return function MerchantSettingDialog({ merchantId, close }: MerchantSettingProps) {
    const t = useT();
    const info = useMerchantInfo(merchantId);
    return (
      <Modal title={t(titleKey)} description={t(descriptionKey)} onClose={() => close()}>
        {info.data ? <SettingForm merchantId={merchantId} current={info.data} close={close} /> : <Spinner />}
      </Modal>
    );
  };
}
