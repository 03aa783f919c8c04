import { useStore } from '@nanostores/react';
import { Dialog } from 'radix-ui';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { actionsFor, type ContextName, type Contexts, shortcutsOf, titleKey } from '../../commands/index.ts';
import { $grants } from '../lib/session.ts';
import { useT } from '../lib/useT.ts';
import { isTyping, keyOf } from '../shell/keyboard.ts';
import { keyCaps } from '../shell/keys.ts';
import { runCommand } from '../shell/runtime.ts';
import { Icon } from './Icon.tsx';
import { returnFocus } from './openingFocus.ts';
import './lists.css';

interface DetailDrawerProps<C extends ContextName> {
  title: string;
  /** Under the title: status badges, a short line. */
  subtitle?: ReactNode;
  onClose: () => void;
  /**
   * With `target`: the registry's actions its state allows, as buttons and by their keys (bulk actions
   * act on the checked rows, never on the one record a drawer shows: the registry leaves them out).
   */
  context?: C;
  target?: Contexts[C] | undefined;
  children: ReactNode;
}

/**
 * The detail drawer of a record, from the right edge. The actions its state allows (from the command
 * registry, as in the row menu) sit at the top with their keys, and those single keys work while the
 * drawer has the focus: the shell's dispatcher leaves an open dialog alone, so the drawer listens itself.
 */
export function DetailDrawer<C extends ContextName>(props: DetailDrawerProps<C>) {
  const t = useT();
  const grants = useStore($grants);
  const { context, target } = props;
  // Where the focus was when the drawer opened (a list row): it goes back there on close. Radix gives
  // it to the dialog's trigger, and a drawer opened by a key or a link has none.
  const [opener] = useState(() => document.activeElement as HTMLElement | null);
  const actions = context && target !== undefined ? actionsFor(grants, context, target) : [];

  // Keys reach the drawer when the focus is in it, or nowhere (after a dialog over it closed, the
  // focus falls to the page's body); a dialog or palette open over it keeps its own keys.
  const contentRef = useRef<HTMLDivElement>(null);
  const keys = useRef({ actions, target });
  keys.current = { actions, target };
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || isTyping(e.target)) return;
      const inside = e.target === document.body || contentRef.current?.contains(e.target as Node);
      if (!inside) return;
      const key = keyOf(e);
      if (key === 'Enter' || key === ' ') return;
      const action = keys.current.actions.find((a) => shortcutsOf(a).includes(key));
      if (!action) return;
      e.preventDefault();
      void runCommand(action, keys.current.target);
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);

  return (
    <Dialog.Root open onOpenChange={(open) => !open && props.onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content
          ref={contentRef}
          className="modal modal-drawer detail-drawer"
          // The drawer itself takes the focus (not its close button), so its keys work and Enter closes nothing.
          onOpenAutoFocus={(e) => {
            e.preventDefault();
            (e.currentTarget as HTMLElement | null)?.focus();
          }}
          onCloseAutoFocus={(e) => returnFocus(e, opener)}
        >
          <header className="modal-head">
            <div className="detail-drawer-heading">
              <Dialog.Title className="modal-title">{props.title}</Dialog.Title>
              {props.subtitle && <div className="detail-drawer-subtitle">{props.subtitle}</div>}
            </div>
            <Dialog.Close className="icon-button" aria-label={t('app.close')}>
              <Icon name="close" />
            </Dialog.Close>
          </header>
          <Dialog.Description className="sr-only">{props.title}</Dialog.Description>
          {actions.length > 0 && (
            <div className="detail-drawer-actions" role="toolbar" aria-label={t('table.actions')}>
              {actions.map((a) => {
                const key = shortcutsOf(a)[0];
                return (
                  <button
                    key={a.id}
                    type="button"
                    className={`button${a.confirm?.danger ? ' danger-outline' : ''}`}
                    onClick={() => void runCommand(a, target)}
                    aria-keyshortcuts={key}
                  >
                    {a.icon && <Icon name={a.icon} />}
                    {t(titleKey(a.id))}
                    {key && <kbd className="button-kbd">{keyCaps(key).join(' ')}</kbd>}
                  </button>
                );
              })}
            </div>
          )}
          <div className="modal-body detail-drawer-body">{props.children}</div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

export interface DetailItem {
  /** Already translated. */
  label: string;
  value: ReactNode;
  /** Monospace, for numbers people copy (order numbers, UTRs). */
  mono?: boolean;
}

/** Label and value pairs in two columns; empty values show a dash so a gap reads as "none". */
export function DetailFields({ items }: { items: DetailItem[] }) {
  return (
    <dl className="detail-fields">
      {items.map((item) => (
        <div key={item.label} className="detail-field">
          <dt>{item.label}</dt>
          <dd className={item.mono ? 'mono' : undefined}>
            {item.value === null || item.value === undefined || item.value === '' ? (
              <span className="muted">—</span>
            ) : (
              item.value
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A titled part of a drawer. */
export function DetailSection({
  title,
  children,
  aside,
}: {
  title: string;
  children: ReactNode;
  aside?: ReactNode;
}) {
  return (
    <section className="detail-extra detail-section" aria-label={title}>
      <div className="detail-section-head">
        <h3>{title}</h3>
        {aside}
      </div>
      {children}
    </section>
  );
}

/** A JSON document (a request or response snapshot), folded until opened. */
export function JsonBlock({ summary, value }: { summary: string; value: unknown }) {
  return (
    <details className="json-block">
      <summary>{summary}</summary>
      <pre className="code-block">
        {value === null || value === undefined ? '—' : JSON.stringify(value, null, 2)}
      </pre>
    </details>
  );
}
