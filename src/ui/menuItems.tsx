import { DropdownMenu } from 'radix-ui';
import type { ReactNode } from 'react';
import { Icon } from './Icon.tsx';

/** A drop-down menu's pop-up, in a portal above the page, aligned to its trigger. */
export function MenuPopup({
  align,
  sideOffset,
  children,
}: {
  align: 'start' | 'end';
  sideOffset: number;
  children: ReactNode;
}) {
  return (
    <DropdownMenu.Portal>
      <DropdownMenu.Content className="menu-popup" align={align} sideOffset={sideOffset}>
        {children}
      </DropdownMenu.Content>
    </DropdownMenu.Portal>
  );
}

/** The tick beside a menu item that is on. */
function MenuTick() {
  return (
    <DropdownMenu.ItemIndicator className="menu-check">
      <Icon name="check" size={14} />
    </DropdownMenu.ItemIndicator>
  );
}

/** An item ticked on and off in a menu that stays open meanwhile (a filter's choices, the columns shown). */
export function TickItem({
  checked,
  onChecked,
  children,
}: {
  checked: boolean;
  onChecked: (on: boolean) => void;
  children: ReactNode;
}) {
  return (
    <DropdownMenu.CheckboxItem
      className="menu-popup-item"
      checked={checked}
      onCheckedChange={onChecked}
      onSelect={(e) => e.preventDefault()}
    >
      <MenuTick />
      {children}
    </DropdownMenu.CheckboxItem>
  );
}

/** A menu's choice of one setting among its values (the size, the language), the current one ticked. */
export function ChoiceItems<V extends string>({
  value,
  values,
  label,
  onValue,
}: {
  value: V;
  values: readonly V[];
  label: (value: V) => string;
  onValue: (value: V) => void;
}) {
  return (
    <DropdownMenu.RadioGroup value={value} onValueChange={(v) => onValue(v as V)}>
      {values.map((v) => (
        <DropdownMenu.RadioItem key={v} value={v} className="menu-popup-item">
          <MenuTick />
          {label(v)}
        </DropdownMenu.RadioItem>
      ))}
    </DropdownMenu.RadioGroup>
  );
}
