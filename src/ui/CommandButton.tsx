import { useStore } from '@nanostores/react';
import { commandById, titleKey } from '../../commands/index.ts';
import { allows } from '../../contract/index.ts';
import { $grants } from '../lib/session.ts';
import { useT } from '../lib/useT.ts';
import { runCommand } from '../shell/runtime.ts';
import { Icon } from './Icon.tsx';

/**
 * A button for a registry command; it is not rendered when the user lacks the command's endpoints
 * (the element-level guard), so a screen never checks a permission by hand.
 */
export function CommandButton({ id, primary }: { id: string; primary?: boolean }) {
  const t = useT();
  const grants = useStore($grants);
  const command = commandById(id);
  if (!command) throw new Error(`no command ${id}`);
  if (!allows(grants, command.needs)) return null;
  return (
    <button
      type="button"
      className={`button${primary ? ' primary' : ''}`}
      onClick={() => void runCommand(command)}
    >
      {command.icon && <Icon name={command.icon} />}
      {t(titleKey(command.id))}
    </button>
  );
}
