import type { Contexts } from '../../../commands/index.ts';
import { memoAudiences } from '../../../contract/endpoints/memo.ts';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { offerUndo } from '../../lib/undo.ts';
import { useT } from '../../lib/useT.ts';
import { CheckField, SelectField, TextAreaField, valueOptions } from '../../ui/fields.tsx';
import { Field, FormActions, savedThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';

interface Props {
  notice?: Contexts['memo'];
  close: (result?: unknown) => void;
}

/** Writes a notice or edits one: title, plain text, audience, pinned. */
export default function MemoForm({ notice, close }: Props) {
  const t = useT();
  // The first field, also when opened over a row's drawer (autoFocus loses to the drawer's focus trap).
  const formRef = useOpeningFocus();
  const form = useForm({
    title: notice?.title ?? '',
    body: notice?.body ?? '',
    audience: notice?.audience ?? ('everyone' as Contexts['memo']['audience']),
    pinned: notice?.pinned ?? false,
  });
  const { values, set, errors } = form;
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!notice) return form.send(endpoints.memo.create, values, savedThenClose(close));
    // An edit is undone by writing back what the notice said before (src/lib/undo.ts).
    const { id, title, body, audience, pinned } = notice;
    form.send(endpoints.memo.update, { id, ...values }, () => {
      offerUndo(t('app.saved'), () => api(endpoints.memo.update, { id, title, body, audience, pinned }));
      close(true);
    });
  };
  return (
    <Modal
      title={t(notice ? 'commands.memo.edit.title' : 'commands.memo.create.title')}
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <Field
          label={t('screens.memo.title')}
          {...form.field('title')}
          maxLength={120}
          autoComplete="off"
          required
        />
        <TextAreaField
          label={t('screens.memo.body')}
          {...form.field('body')}
          hint={t('screens.memo.bodyHint')}
          maxLength={4000}
          rows={6}
        />
        <SelectField
          label={t('screens.memo.audience')}
          value={values.audience}
          onValue={(v) => set('audience', v as Contexts['memo']['audience'])}
          error={errors.audience}
          options={valueOptions(memoAudiences, (a) => t(`screens.memo.audiences.${a}`))}
        />
        <CheckField
          label={t('screens.memo.pinned')}
          checked={values.pinned}
          onChecked={(on) => set('pinned', on)}
        />
        <p className="field-hint">{t('screens.memo.pinnedHint')}</p>
        <FormActions busy={form.busy} onCancel={() => close()} />
      </form>
    </Modal>
  );
}
