import { useStore } from '@nanostores/react';
import { Dialog } from 'radix-ui';
import { $drawerOpen } from '../lib/settings.ts';
import { useT } from '../lib/useT.ts';
import { Brand, Menu } from './Sidebar.tsx';

/** Below 1021 px the sidebar is a drawer; it closes on route change and on resize. */
export default function MobileDrawer() {
  const t = useT();
  const open = useStore($drawerOpen);
  return (
    <Dialog.Root open={open} onOpenChange={(o) => $drawerOpen.set(o)}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="drawer-nav no-print">
          <Dialog.Title className="sr-only">{t('app.menu')}</Dialog.Title>
          <Dialog.Description className="sr-only">{t('app.menuDescription')}</Dialog.Description>
          <Brand collapsed={false} />
          <Menu collapsed={false} />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
