import { endpoints } from '../contract/index.ts';
import { createAction, deleteAction, editAction, openDialog, statusToggle } from './builders.ts';
import { rowAction, screen } from './types.ts';

const { admin, role, log, mailOutbox } = endpoints;

const adminForm = () => import('../src/screens/admin/AdminForm.tsx');
const roleForm = () => import('../src/screens/role/RoleForm.tsx');
const permissionTree = () => import('../src/screens/role/PermissionTree.tsx');

/** Administrators, roles, the operation log and the mail outbox. */
export const systemCommands = [
  screen({
    id: 'admin.list',
    route: '/admin',
    group: 'system',
    icon: 'users',
    shortcut: 'g a',
    needs: [admin.list, admin.create, admin.update, admin.delete],
    screen: () => import('../src/screens/admin/AdminScreen.tsx'),
  }),
  createAction('admin.create', [admin.create], openDialog(adminForm)),
  editAction(
    'admin',
    'admin.edit',
    admin.update,
    openDialog(adminForm, (user) => ({ user })),
  ),
  ...statusToggle('admin', 'admin', admin.update),
  rowAction('admin', {
    id: 'admin.resetGoogle',
    icon: 'key',
    shortcut: 'r',
    needs: [admin.resetGoogle],
    when: (user) => user.googleBound,
    confirm: { danger: true },
    run: async (c, user) => {
      await c.call(admin.resetGoogle, { id: user.id });
      c.toast('success', c.t('app.done'));
      c.refresh();
    },
  }),
  deleteAction('admin', 'admin.delete', admin.delete),

  screen({
    id: 'role.list',
    route: '/role',
    group: 'system',
    icon: 'shield',
    shortcut: 'g r',
    needs: [role.list, role.create, role.update, role.delete, role.permissions, role.setPermissions],
    screen: () => import('../src/screens/role/RoleScreen.tsx'),
  }),
  createAction('role.create', [role.create], openDialog(roleForm)),
  editAction(
    'role',
    'role.edit',
    role.update,
    openDialog(roleForm, (target) => ({ role: target })),
  ),
  rowAction('role', {
    id: 'role.permissions',
    icon: 'check',
    shortcut: 'p',
    needs: [role.permissions],
    run: openDialog(permissionTree, (target) => ({ role: target })),
  }),
  deleteAction('role', 'role.delete', role.delete, {
    when: (target) => !target.builtin && target.userCount === 0,
  }),

  screen({
    id: 'log.list',
    route: '/log',
    group: 'system',
    icon: 'list',
    shortcut: 'g l',
    needs: [log.list],
    screen: () => import('../src/screens/log/LogScreen.tsx'),
  }),
  rowAction('log', {
    id: 'log.byUser',
    icon: 'user',
    shortcut: 'u',
    needs: [log.list],
    when: (row) => row.username !== '',
    run: (c, row) => c.navigate(`/log?username=${encodeURIComponent(row.username)}`),
  }),

  screen({
    id: 'mailOutbox.list',
    route: '/mailOutbox',
    group: 'system',
    icon: 'mail',
    shortcut: 'g m',
    needs: [mailOutbox.list],
    screen: () => import('../src/screens/mail/MailOutboxScreen.tsx'),
  }),
];
