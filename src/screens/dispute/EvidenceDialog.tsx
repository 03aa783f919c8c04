import { useState } from 'react';
import { endpoints, errno } from '../../../contract/index.ts';
import { base64Of } from '../../lib/api.ts';
import { useT } from '../../lib/useT.ts';
import { useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { FileField, TextAreaField } from '../../ui/fields.tsx';
import { FormActions, RefusalNote, toldThenClose, useForm } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import type { Dispute } from './parts.tsx';

const imageTypes = ['image/png', 'image/jpeg', 'image/webp'] as const;
type ImageType = (typeof imageTypes)[number];
/** The server's limit, checked here first so a large photo is refused before it is sent. */
const maxImageBytes = 2 * 1024 * 1024;

type Picked = { filename: string; mime: ImageType; dataBase64: string };

/** Said inside the dialog: the case was decided meanwhile. */
const refusals = [errno.conflict, errno.notFound];

/**
 * Evidence added to an open case by either side: a note (what the bank, the payer or the merchant said) and
 * optionally an image (a bank letter, a screenshot: PNG, JPEG or WebP, at most 2 MB).
 */
export default function EvidenceDialog({
  dispute,
  close,
}: {
  dispute: Dispute;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({ note: '' });
  const { refusal, call } = useCodeConfirmed(form, refusals);
  const [file, setFile] = useState<Picked | null>(null);
  const [fileError, setFileError] = useState<string | undefined>();
  const choose = async (chosen: File | undefined) => {
    setFile(null);
    setFileError(undefined);
    if (!chosen) return;
    if (!imageTypes.includes(chosen.type as ImageType)) return setFileError(t('validation.image'));
    if (chosen.size > maxImageBytes) return setFileError(t('validation.imageSize'));
    const dataBase64 = await base64Of(chosen);
    setFile({ filename: chosen.name.slice(0, 200), mime: chosen.type as ImageType, dataBase64 });
  };
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const note = form.values.note.trim();
    form.send(
      endpoints.dispute.evidence,
      { id: dispute.id, note, ...(file ? { file } : {}) },
      toldThenClose(close, (done) => t('screens.dispute.evidenceDone', { disputeNo: done.disputeNo })),
      {
        via: call,
        // A file may speak for itself; otherwise the note is what is added.
        check: () => (note === '' && !file ? { note: t('validation.required') } : undefined),
      },
    );
  };
  return (
    <Modal
      title={t('commands.dispute.evidence.title')}
      description={t('screens.dispute.evidenceText', { disputeNo: dispute.disputeNo })}
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        <RefusalNote refusal={refusal} />
        <TextAreaField
          label={t('screens.dispute.note')}
          {...form.field('note')}
          hint={t('screens.dispute.noteHint')}
          maxLength={2000}
          rows={4}
        />
        <FileField
          label={t('screens.dispute.file')}
          error={fileError ?? form.errors.file}
          hint={file ? file.filename : t('screens.dispute.fileHint')}
          accept={imageTypes}
          onFiles={(files) => void choose(files?.[0])}
        />
        <FormActions
          busy={form.busy}
          onCancel={() => close()}
          submitLabel={t('commands.dispute.evidence.title')}
        />
      </form>
    </Modal>
  );
}
