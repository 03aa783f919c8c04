import { useId } from 'react';
import { endpoints, errno } from '../../../contract/index.ts';
import { type FieldError, isApiError } from '../../lib/api.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CodeAndActions, issueText, useForm } from '../../ui/form.tsx';
import { merchantSettingDialog, type SettingFormProps } from './MerchantSettingDialog.tsx';
import { merchantTarget } from './merchantInfo.ts';
import './dev.css';
import { parseWhitelist } from './whitelist.ts';

const maxEntries = 50;

/**
 * The addresses gateway payouts are accepted from (GATEWAY.md); an empty list refuses every one. A change
 * is confirmed with the user's Google code: with the API secret, the list is what lets a payout in.
 */
export default merchantSettingDialog('commands.dev.ipsUpdate.title', 'screens.dev.ipsHint', Form);

function Form({ merchantId, current, close }: SettingFormProps) {
  const t = useT();
  const id = useId();
  const form = useForm({ text: current.payoutIpWhitelist.join('\n'), code: '' });
  const { unbound, call } = useCodeConfirmed(form);
  const error = form.errors.payoutIpWhitelist;
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const list = parseWhitelist(form.values.text);
    if (list.length > maxEntries) {
      return form.setErrors({ payoutIpWhitelist: t('validation.tooManyItems', { max: maxEntries }) });
    }
    const input = {
      ...merchantTarget(merchantId),
      payoutIpWhitelist: list,
      code: form.values.code.trim(),
    };
    const checked = endpoints.merchant.ipsUpdate.input.safeParse(input);
    if (!checked.success) {
      const issues = checked.error.issues as unknown as Parameters<typeof issueText>[0][];
      const entries = issues.filter((issue) => issue.path[0] === 'payoutIpWhitelist');
      const code = issues.find((issue) => issue.path[0] === 'code');
      // Name every entry that is wrong, not only the first.
      const lines = entries.map((issue) => `${list[Number(issue.path[1])] ?? ''}: ${issueText(issue)}`);
      return form.setErrors({
        ...(lines.length ? { payoutIpWhitelist: lines.join('\n') } : {}),
        ...(code ? { code: issueText(code) } : {}),
      });
    }
    void form.submit(async () => {
      try {
        if ((await call(endpoints.merchant.ipsUpdate, input)) === undefined) return;
      } catch (error) {
        // The server checks each address for real (300 is no octet) and names the entry by its index.
        const fields = isApiError(error, errno.invalid)
          ? (error.data as { fields?: FieldError[] } | null)?.fields
          : null;
        if (!fields?.length) throw error;
        const lines = fields.map((f) => {
          const entry = list[Number(String(f.path).split('.')[1])];
          return entry === undefined ? f.message : `${entry}: ${f.message}`;
        });
        return form.setErrors({ payoutIpWhitelist: lines.join('\n') });
      }
      toast('success', t('app.saved'));
      close(true);
    });
  };
  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <div className={`field${error ? ' has-error' : ''}`}>
        <label htmlFor={id}>{t('screens.dev.ips')}</label>
        <textarea
          id={id}
          className="mono"
          rows={6}
          value={form.values.text}
          onChange={(e) => form.set('text', e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={`${id}-help`}
          spellCheck={false}
          // biome-ignore lint/a11y/noAutofocus: the dialog's only field
          autoFocus
          onKeyDown={(e) => {
            // Enter makes a new line here; Ctrl+Enter saves.
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit();
          }}
        />
        {error ? (
          <p id={`${id}-help`} className="field-error ip-errors" role="alert">
            {error}
          </p>
        ) : (
          <p id={`${id}-help`} className="field-hint">
            {t('screens.dev.ipsFormat')}
          </p>
        )}
      </div>
      {unbound && <UnboundNotice close={() => close()} />}
      <CodeAndActions form={form} onCancel={() => close()} submitLabel={t('app.save')} />
    </form>
  );
}
