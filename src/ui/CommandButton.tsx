import { useStore } from '@nanostores/react';
import { commandById, titleKey } from '../../commands/index.ts';
import { allows } from '../../contract/index.ts';
import { $grants } from '../lib/session.ts';
import { useT } from '../lib/useT.ts';
import { actionApplies, runCommand } from '../shell/runtime.ts';
import { Icon } from './Icon.tsx';

/**
 * A button for a registry command; it is not rendered when the user lacks the command's endpoints
 * (the element-level guard), so a screen never checks a permission by hand. A row action gets its
 * `target` (the row it acts on) and is not rendered when its state does not allow it.
 */
export function CommandButton({ id, primary, target }: { id: string; primary?: boolean; target?: unknown }) {
  const t = useT();
  const grants = useStore($grants);
  const command = commandById(id);
  if (!command) throw new Error(`no command ${id}`);
  if (!allows(grants, command.needs)) return null;
  if (command.kind !== 'screen' && target !== undefined && !actionApplies(command, target)) return null;
  return (
    <button
      type="button"
      className={`button${primary ? ' primary' : ''}`}
      onClick={() => void runCommand(command, target)}
    >
      {command.icon && <Icon name={command.icon} />}
      {t(titleKey(command.id))}
    </button>
  );
}
