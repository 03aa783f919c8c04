import type { Route } from './http/handle.ts';
import { adminRoutes } from './modules/admin/routes.ts';
import { authRoutes } from './modules/auth/routes.ts';
import { roleRoutes } from './modules/role/routes.ts';
import { systemRoutes } from './modules/system/routes.ts';

/** Every handler; `createApp` refuses to start when an endpoint of the registry has none. */
export const routes: readonly Route[] = [...systemRoutes, ...authRoutes, ...adminRoutes, ...roleRoutes];
