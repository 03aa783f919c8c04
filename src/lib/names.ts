import { hasKey, t } from './i18n.ts';

/** Built-in roles carry a message key as their name; user-made roles show as typed. */
export function roleName(name: string): string {
  return /^[a-zA-Z]+$/.test(name) && hasKey(`roles.${name}`) ? t(`roles.${name}`) : name;
}

export function roleDescription(name: string, description: string): string {
  return !description && hasKey(`roles.${name}Description`) ? t(`roles.${name}Description`) : description;
}
