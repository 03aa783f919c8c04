import { useState } from 'react';
import { toast } from '../lib/notify.ts';
import { useT } from '../lib/useT.ts';
import { Icon } from './Icon.tsx';

/** Copies `text` to the clipboard; falls back to a hidden selection where the Clipboard API is missing. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/** A button that copies a value; `label` names what is copied, for screen readers and the tooltip. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const t = useT();
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="button"
      aria-label={t('ui.copy.copyNamed', { name: label })}
      title={t('ui.copy.copyNamed', { name: label })}
      onClick={async () => {
        const ok = await copyText(text);
        setCopied(ok);
        toast(ok ? 'success' : 'error', t(ok ? 'ui.copy.copied' : 'ui.copy.failed'));
      }}
    >
      <Icon name={copied ? 'check' : 'clipboard'} />
      <span className="button-label">{t(copied ? 'ui.copy.done' : 'ui.copy.copy')}</span>
    </button>
  );
}
