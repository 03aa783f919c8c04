import { DropdownMenu } from 'radix-ui';
import type { ComponentType, ReactNode } from 'react';
import { type AnyAction, titleKey } from '../../commands/index.ts';
import { useT } from '../lib/useT.ts';
import { keyCaps } from '../shell/keys.ts';
import { runCommand } from '../shell/runtime.ts';
import { Icon } from './Icon.tsx';
import { type Column, cellOf } from './listTable.ts';
import { Modal } from './Modal.tsx';

type MenuItem = ComponentType<{ className: string; onSelect: () => void; children: ReactNode }>;

/** A row's actions as items of a menu (the ⋯ menu or the right-click menu), each with its key. */
export function ActionItems({
  Item,
  actions,
  target,
}: {
  Item: MenuItem;
  actions: AnyAction[];
  target: unknown;
}) {
  const t = useT();
  return actions.map((a) => (
    <Item
      key={a.id}
      className={`menu-popup-item${a.confirm?.danger ? ' danger' : ''}`}
      onSelect={() => void runCommand(a, target)}
    >
      {a.icon && <Icon name={a.icon} size={14} />}
      {t(titleKey(a.id))}
      {typeof a.shortcut === 'string' && <kbd className="menu-kbd">{keyCaps(a.shortcut).join(' ')}</kbd>}
    </Item>
  ));
}

/** The ⋯ menu at the end of a row: Details, then the row's actions. */
export function RowMenu({
  actions,
  onOpenDetail,
  target,
}: {
  actions: AnyAction[];
  onOpenDetail: () => void;
  target: unknown;
}) {
  const t = useT();
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger className="icon-button" aria-label={t('table.rowActions')} tabIndex={-1}>
        <Icon name="more" />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content className="menu-popup" align="end">
          <DropdownMenu.Item className="menu-popup-item" onSelect={onOpenDetail}>
            <Icon name="list" size={14} />
            {t('table.details')}
          </DropdownMenu.Item>
          <ActionItems Item={DropdownMenu.Item} actions={actions} target={target} />
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

/** The built-in drawer of a row: every column's cell, the screen's extra content, the row's actions. */
export function RowDetail<R>({
  row,
  title,
  columns,
  extra,
  actions,
  onClose,
}: {
  row: R;
  title: string;
  columns: Column<R>[];
  extra: ReactNode;
  actions: AnyAction[];
  onClose: () => void;
}) {
  const t = useT();
  return (
    <Modal title={title} onClose={onClose} variant="drawer">
      <dl className="detail-fields">
        {columns.map((c) => (
          <div key={c.id} className="detail-field">
            <dt>{t(c.header)}</dt>
            <dd>{cellOf(c, row)}</dd>
          </div>
        ))}
      </dl>
      {extra}
      <div className="detail-actions">
        {actions.map((a) => (
          <button
            key={a.id}
            type="button"
            className={`button${a.confirm?.danger ? ' danger-outline' : ''}`}
            onClick={() => {
              onClose();
              void runCommand(a, row);
            }}
          >
            {a.icon && <Icon name={a.icon} />}
            {t(titleKey(a.id))}
          </button>
        ))}
      </div>
    </Modal>
  );
}
