import { endpoints } from '../contract/index.ts';
import { callThenRefresh, deleteAction, editAction, openDialog } from './builders.ts';
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
    run: openDialog(memoForm),
  }),
  editAction(
    'memo',
    'memo.edit',
    memo.update,
    openDialog(memoForm, (notice) => ({ notice })),
  ),
  rowAction('memo', {
    id: 'memo.pin',
    icon: 'zap',
    shortcut: 'p',
    needs: [memo.update],
    when: (notice) => !notice.pinned,
    run: callThenRefresh(
      memo.update,
      (notice) => ({ id: notice.id, pinned: true }),
      'screens.memo.pinnedNow',
    ),
  }),
  rowAction('memo', {
    id: 'memo.unpin',
    icon: 'zap',
    shortcut: 'p',
    needs: [memo.update],
    when: (notice) => notice.pinned,
    run: callThenRefresh(
      memo.update,
      (notice) => ({ id: notice.id, pinned: false }),
      'screens.memo.unpinnedNow',
    ),
  }),
  deleteAction('memo', 'memo.delete', memo.delete, { message: 'screens.memo.deleted' }),
];
