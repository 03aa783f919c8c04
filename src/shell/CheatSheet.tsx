import { useStore } from '@nanostores/react';
import { useState } from 'react';
import { cheatSheet, cheatSheetSectionKey, titleKey } from '../../commands/index.ts';
import { $grants } from '../lib/session.ts';
import { useT } from '../lib/useT.ts';
import { Modal } from '../ui/Modal.tsx';
import { keyCaps } from './keys.ts';
import { $cheatSheetOpen, contextsOnScreen } from './runtime.ts';

/**
 * `?`: the shortcuts the user may use here first (the rows of the lists on screen, then any list's keys),
 * then those that work anywhere and the screens' `g` keys; the other screens' row keys on demand.
 */
export default function CheatSheet() {
  const t = useT();
  const open = useStore($cheatSheetOpen);
  const grants = useStore($grants);
  const [everyScreen, setEveryScreen] = useState(false);
  if (!open) return null;
  const lines = cheatSheet(grants);
  const sections = [...new Set(lines.map((l) => l.section))];
  const here = contextsOnScreen().map((c) => `context.${c}`);
  const first = [...here, ...(here.length ? ['table'] : []), 'global', 'navigation'].filter((s) =>
    sections.includes(s),
  );
  const others = sections.filter((s) => !first.includes(s));
  const shown = everyScreen ? [...first, ...others] : first;
  return (
    <Modal
      title={t('app.cheatSheet.title')}
      onClose={() => {
        setEveryScreen(false);
        $cheatSheetOpen.set(false);
      }}
      variant="sheet"
    >
      <div className="cheatsheet">
        {shown.map((section) => (
          <section key={section} className="cheatsheet-section">
            <h3>{t(cheatSheetSectionKey(section))}</h3>
            <dl>
              {lines
                .filter((l) => l.section === section)
                .map((l) => (
                  <div key={l.command.id} className="cheatsheet-line">
                    <dt>{t(titleKey(l.command.id))}</dt>
                    <dd>
                      {l.keys.map((k) => (
                        <span key={k} className="keys">
                          {keyCaps(k).map((cap) => (
                            <kbd key={cap}>{cap}</kbd>
                          ))}
                        </span>
                      ))}
                    </dd>
                  </div>
                ))}
            </dl>
          </section>
        ))}
      </div>
      {others.length > 0 && (
        <button type="button" className="button" onClick={() => setEveryScreen(!everyScreen)}>
          {t(everyScreen ? 'app.cheatSheet.thisScreen' : 'app.cheatSheet.everyScreen', { n: others.length })}
        </button>
      )}
    </Modal>
  );
}
