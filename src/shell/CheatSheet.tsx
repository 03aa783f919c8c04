import { useStore } from '@nanostores/react';
import { cheatSheet, cheatSheetSectionKey, titleKey } from '../../commands/index.ts';
import { $grants } from '../lib/session.ts';
import { useT } from '../lib/useT.ts';
import { Modal } from '../ui/Modal.tsx';
import { keyCaps } from './keys.ts';
import { $cheatSheetOpen } from './runtime.ts';

/** `?`: every shortcut the user may use, grouped as the dispatcher applies them. */
export default function CheatSheet() {
  const t = useT();
  const open = useStore($cheatSheetOpen);
  const grants = useStore($grants);
  if (!open) return null;
  const lines = cheatSheet(grants);
  const sections = [...new Set(lines.map((l) => l.section))];
  return (
    <Modal title={t('app.cheatSheet.title')} onClose={() => $cheatSheetOpen.set(false)} variant="sheet">
      <div className="cheatsheet">
        {sections.map((section) => (
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
    </Modal>
  );
}
