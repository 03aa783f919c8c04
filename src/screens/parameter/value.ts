import type { Contexts } from '../../../commands/index.ts';
import { thousands } from '../../lib/format.ts';
import { t } from '../../lib/i18n.ts';

type Parameter = Contexts['parameter'];

/** A parameter's value as people read it, by its kind. */
export function shownValue(kind: Parameter['kind'], value: unknown): string {
  switch (kind) {
    case 'switch':
      return t(value === true ? 'parameters.on' : 'parameters.off');
    case 'minutes':
      return t('parameters.minutesValue', { n: value });
    case 'seconds':
      return Array.isArray(value) ? t('parameters.secondsValue', { list: value.join(', ') }) : '';
    case 'money':
      return thousands(value as string);
    case 'text':
      return typeof value === 'string' && value !== '' ? value : t('parameters.empty');
    default:
      return String(value ?? '');
  }
}

/** The text an input shows for a value (a switch's is its own checkbox). */
export function inputText(kind: Parameter['kind'], value: unknown): string {
  if (kind === 'seconds' && Array.isArray(value)) return value.join(', ');
  return value === undefined || value === null ? '' : String(value);
}

/** What the input's text sends: numbers where the kind takes numbers, else the text itself. */
export function wireValue(kind: Parameter['kind'], text: string, on: boolean): unknown {
  const trimmed = text.trim();
  if (kind === 'switch') return on;
  if (kind === 'minutes') return /^\d{1,9}$/.test(trimmed) ? Number(trimmed) : trimmed;
  if (kind === 'seconds') {
    const parts = trimmed.split(/[\s,，;]+/).filter(Boolean);
    return parts.every((p) => /^\d{1,9}$/.test(p)) ? parts.map(Number) : trimmed;
  }
  return kind === 'text' ? text : trimmed;
}
