import { endpoints } from '../contract/index.ts';
import { action, rowAction, screen } from './types.ts';

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
  action({
    id: 'admin.create',
    icon: 'plus',
    needs: [admin.create],
    run: async (c) => {
      if (await c.dialog(adminForm, {})) c.refresh();
    },
  }),
  rowAction('admin', {
    id: 'admin.edit',
    icon: 'edit',
    shortcut: 'e',
    needs: [admin.update],
    run: async (c, user) => {
      if (await c.dialog(adminForm, { user })) c.refresh();
    },
  }),
  rowAction('admin', {
    id: 'admin.disable',
    icon: 'power',
    shortcut: 's',
    needs: [admin.update],
    when: (user) => user.status === 'active',
    confirm: { danger: true },
    run: async (c, user) => {
      await c.call(admin.update, { id: user.id, status: 'disabled' });
      c.toast('success', c.t('app.done'));
      c.refresh();
    },
  }),
  rowAction('admin', {
    id: 'admin.enable',
    icon: 'power',
    shortcut: 's',
    needs: [admin.update],
    when: (user) => user.status === 'disabled',
    run: async (c, user) => {
      await c.call(admin.update, { id: user.id, status: 'active' });
      c.toast('success', c.t('app.done'));
      c.refresh();
    },
  }),
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
  rowAction('admin', {
    id: 'admin.delete',
    icon: 'trash',
    shortcut: 'Delete',
    needs: [admin.delete],
    confirm: { danger: true },
    run: async (c, user) => {
      await c.call(admin.delete, { id: user.id });
      c.toast('success', c.t('app.done'));
      c.refresh();
    },
  }),

  screen({
    id: 'role.list',
    route: '/role',
    group: 'system',
    icon: 'shield',
    shortcut: 'g r',
    needs: [role.list, role.create, role.update, role.delete, role.permissions, role.setPermissions],
    screen: () => import('../src/screens/role/RoleScreen.tsx'),
  }),
  action({
    id: 'role.create',
    icon: 'plus',
    needs: [role.create],
    run: async (c) => {
      if (await c.dialog(roleForm, {})) c.refresh();
    },
  }),
  rowAction('role', {
    id: 'role.edit',
    icon: 'edit',
    shortcut: 'e',
    needs: [role.update],
    run: async (c, target) => {
      if (await c.dialog(roleForm, { role: target })) c.refresh();
    },
  }),
  rowAction('role', {
    id: 'role.permissions',
    icon: 'check',
    shortcut: 'p',
    needs: [role.permissions],
    run: async (c, target) => {
      if (await c.dialog(permissionTree, { role: target })) c.refresh();
    },
  }),
  rowAction('role', {
    id: 'role.delete',
    icon: 'trash',
    shortcut: 'Delete',
    needs: [role.delete],
    when: (target) => !target.builtin && target.userCount === 0,
    confirm: { danger: true },
    run: async (c, target) => {
      await c.call(role.delete, { id: target.id });
      c.toast('success', c.t('app.done'));
      c.refresh();
    },
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
