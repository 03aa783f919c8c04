import { endpoints } from '../contract/index.ts';
import {
  callAgain,
  callThenRefresh,
  deleteAction,
  editAction,
  endpointAction,
  endpointScreen,
  openDialog,
} from './builders.ts';
import { type Command, type Contexts, rowAction } from './types.ts';

const { memo } = endpoints;

/** A pin taken back: the notice's earlier pin. */
const pinBack = callAgain(memo.update, (notice: Contexts['memo']) => ({
  id: notice.id,
  pinned: notice.pinned,
}));

const memoForm = () => import('../src/screens/memo/MemoForm.tsx');

/** The system memo: notices the platform writes for the dashboards, pinned first. */
export const memoCommands: readonly Command[] = [
  endpointScreen([memo.list, memo.create, memo.update, memo.delete], {
    route: '/system/memo',
    group: 'system',
    icon: 'clipboard',
    shortcut: 'g N',
    screen: () => import('../src/screens/memo/MemoScreen.tsx'),
  }),
  endpointAction(memo.create, {
    icon: 'plus',
    // Shift-N from anywhere: a notice is often written from the screen that prompted it.
    shortcut: 'N',
    run: openDialog(memoForm),
  }),
  editAction(
    'memo',
    memo.update,
    openDialog(memoForm, (notice) => ({ notice })),
  ),
  rowAction('memo', {
    id: 'memo.pin',
    icon: 'zap',
    shortcut: 'p',
    needs: [memo.update],
    when: (notice) => !notice.pinned,
    run: callThenRefresh(memo.update, (notice) => ({ id: notice.id, pinned: true }), {
      message: 'screens.memo.pinnedNow',
      undo: pinBack,
    }),
  }),
  rowAction('memo', {
    id: 'memo.unpin',
    icon: 'zap',
    shortcut: 'p',
    needs: [memo.update],
    when: (notice) => notice.pinned,
    run: callThenRefresh(memo.update, (notice) => ({ id: notice.id, pinned: false }), {
      message: 'screens.memo.unpinnedNow',
      undo: pinBack,
    }),
  }),
  deleteAction('memo', memo.delete, {
    message: 'screens.memo.deleted',
    // Written again as it was (a new id: nothing points at a notice).
    undo: (c, notice) =>
      c.call(memo.create, {
        title: notice.title,
        body: notice.body,
        pinned: notice.pinned,
        audience: notice.audience,
      }),
  }),
];
