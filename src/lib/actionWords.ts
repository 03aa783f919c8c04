import { actions } from '../../commands/index.ts';
import { hasKey, t } from './i18n.ts';

/** The actions by id: an endpoint's own action is named by its endpoint's id. */
const actionIds = new Set(actions.map((a) => a.id));

/**
 * What was done, in words: the title of the action that does it, else what its endpoint does (a screen's
 * title would name a read by its screen), else the log's own name for a door with no endpoint (the pay
 * page, the simulator's checkout); the id otherwise. The operation log and the session's log read it.
 */
export function actionWords(action: string): string {
  const keys = [`endpoints.${action}`, `screens.log.actions.${action}`];
  if (actionIds.has(action)) keys.unshift(`commands.${action}.title`);
  for (const key of keys) if (hasKey(key)) return t(key);
  return action;
}
