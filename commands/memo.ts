import { endpoints } from '../contract/index.ts';
import { action, type Command, rowAction, screen } from './types.ts';

const { memo } = endpoints;

const memoForm = () => import('../src/screens/memo/MemoForm.tsx');

/** The system memo: notices the platform writes for the dashboards, pinned first. */
export const memoCommands: readonly Command[] = [
  screen({
    id: 'memo.list',
    route: '/system/memo',
    group: 'system',
    icon: 'clipboard',
    shortcut: 'g N',
    needs: [memo.list, memo.create, memo.update, memo.delete],
    screen: () => import('../src/screens/memo/MemoScreen.tsx'),
  }),
  action({
    id: 'memo.create',
    icon: 'plus',
    // Shift-N from anywhere: a notice is often written from the screen that prompted it.
    shortcut: 'N',
    needs: [memo.create],
    run: async (c) => {
      if (await c.dialog(memoForm, {})) c.refresh();
    },
  }),
  rowAction('memo', {
    id: 'memo.edit',
    icon: 'edit',
    shortcut: 'e',
    needs: [memo.update],
    run: async (c, notice) => {
      if (await c.dialog(memoForm, { notice })) c.refresh();
    },
  }),
  rowAction('memo', {
    id: 'memo.pin',
    icon: 'zap',
    shortcut: 'p',
    needs: [memo.update],
    when: (notice) => !notice.pinned,
    run: async (c, notice) => {
      await c.call(memo.update, { id: notice.id, pinned: true });
      c.toast('success', c.t('screens.memo.pinnedNow'));
      c.refresh();
    },
  }),
  rowAction('memo', {
    id: 'memo.unpin',
    icon: 'zap',
    shortcut: 'p',
    needs: [memo.update],
    when: (notice) => notice.pinned,
    run: async (c, notice) => {
      await c.call(memo.update, { id: notice.id, pinned: false });
      c.toast('success', c.t('screens.memo.unpinnedNow'));
      c.refresh();
    },
  }),
  rowAction('memo', {
    id: 'memo.delete',
    icon: 'trash',
    shortcut: 'Delete',
    needs: [memo.delete],
    confirm: { danger: true },
    run: async (c, notice) => {
      await c.call(memo.delete, { id: notice.id });
      c.toast('success', c.t('screens.memo.deleted'));
      c.refresh();
    },
  }),
];
