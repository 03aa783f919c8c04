import { endpoints } from '../contract/index.ts';
import {
  deleteAction,
  doneText,
  endpointRowAction,
  endpointScreen,
  formActions,
  listLink,
  openDialog,
  statusToggle,
} from './builders.ts';

const { admin, role, log, mailOutbox } = endpoints;

const adminForm = () => import('../src/screens/admin/AdminForm.tsx');
const roleForm = () => import('../src/screens/role/RoleForm.tsx');
const permissionTree = () => import('../src/screens/role/PermissionTree.tsx');

/** Administrators, roles, the operation log and the mail outbox. */
export const systemCommands = [
  endpointScreen([admin.list, admin.create, admin.update, admin.delete], {
    route: '/admin',
    group: 'system',
    icon: 'users',
    shortcut: 'g a',
    screen: () => import('../src/screens/admin/AdminScreen.tsx'),
  }),
  ...formActions('admin', admin.create, admin.update, adminForm, (user) => ({ user }), { shortcut: '+ u' }),
  ...statusToggle('admin', 'admin', admin.update),
  endpointRowAction('admin', admin.resetGoogle, {
    icon: 'key',
    shortcut: 'r',
    when: (user) => user.googleBound,
    confirm: { danger: true },
    run: async (c, user) => {
      await c.call(admin.resetGoogle, { id: user.id });
      c.toast('success', doneText(c));
      c.refresh();
    },
  }),
  deleteAction('admin', admin.delete),

  endpointScreen([role.list, role.create, role.update, role.delete, role.permissions, role.setPermissions], {
    route: '/role',
    group: 'system',
    icon: 'shield',
    shortcut: 'g r',
    screen: () => import('../src/screens/role/RoleScreen.tsx'),
  }),
  ...formActions('role', role.create, role.update, roleForm, (r) => ({ role: r }), { shortcut: '+ r' }),
  endpointRowAction('role', role.permissions, {
    icon: 'check',
    shortcut: 'p',
    run: openDialog(permissionTree, (target) => ({ role: target })),
  }),
  deleteAction('role', role.delete, {
    when: (target) => !target.builtin && target.userCount === 0,
  }),

  endpointScreen([log.list], {
    route: '/log',
    group: 'system',
    icon: 'list',
    shortcut: 'g l',
    screen: () => import('../src/screens/log/LogScreen.tsx'),
  }),
  listLink(
    'log',
    'log.byUser',
    log.list,
    { icon: 'user', shortcut: 'u', when: (row) => row.username !== '' },
    (row) => `/log?username=${encodeURIComponent(row.username)}`,
  ),

  endpointScreen([mailOutbox.list], {
    route: '/mailOutbox',
    group: 'system',
    icon: 'mail',
    shortcut: 'g m',
    screen: () => import('../src/screens/mail/MailOutboxScreen.tsx'),
  }),
];
