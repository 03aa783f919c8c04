import { useEffect, useState } from 'react';
import { endpoints, errno } from '../../../contract/index.ts';
import { api, base64Of } from '../../lib/api.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { FileField } from '../../ui/fields.tsx';
import { FormActions, validate } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { OrderSummary } from './OrderSummary.tsx';
import type { Payin } from './parts.tsx';
import './order.css';

const imageTypes = ['image/png', 'image/jpeg', 'image/webp'] as const;
type ImageType = (typeof imageTypes)[number];
/** The server's limit, checked here first so a large photo is refused before it is sent. */
const maxImageBytes = 2 * 1024 * 1024;

/** Attaches a payment proof (PNG, JPEG or WebP, at most 2 MB) to an order. */
export default function ImageUploadDialog({
  order,
  close,
}: {
  order: Payin;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const formRef = useOpeningFocus();
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState<string | null>(null);

  useEffect(() => {
    if (!file) return;
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  const choose = (chosen: File | undefined) => {
    setFile(null);
    setPreview(null);
    setError(null);
    if (!chosen) return;
    if (!imageTypes.includes(chosen.type as ImageType)) return setError(t('validation.image'));
    if (chosen.size > maxImageBytes) return setError(t('validation.imageSize'));
    setFile(chosen);
  };

  const onSubmit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!file) return setError(t('validation.required'));
    setBusy(true);
    try {
      const input = {
        id: order.id,
        filename: file.name.slice(0, 200),
        mime: file.type as ImageType,
        dataBase64: await base64Of(file),
      };
      const valid = validate(endpoints.merchantOrder.uploadImage.input, input);
      if (!valid.ok) return setError(Object.values(valid.errors)[0] ?? t('validation.invalid'));
      await api(endpoints.merchantOrder.uploadImage, input, { quiet: [errno.invalid] }).catch((err) => {
        const fields = (err as { fields?: Record<string, string> }).fields;
        if (fields && Object.keys(fields).length) setError(Object.values(fields)[0] ?? null);
        throw err;
      });
      toast('success', t('screens.order.image.done'));
      close(true);
    } catch {
      // shown above, or by api()
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal title={t('screens.order.image.title', { orderNo: order.orderNo })} onClose={() => close()}>
      <form ref={formRef} className="form" onSubmit={(e) => void onSubmit(e)} noValidate>
        <OrderSummary order={order} />
        <FileField
          label={t('screens.order.image.file')}
          error={error ?? undefined}
          hint={t('screens.order.image.hint')}
          accept={imageTypes}
          onFiles={(files) => choose(files?.[0])}
        />
        {preview && <img className="image-preview" src={preview} alt={t('screens.order.image.preview')} />}
        <FormActions
          busy={busy}
          disabled={!file}
          onCancel={() => close()}
          submitLabel={t('commands.merchantOrder.uploadImage.title')}
        />
      </form>
    </Modal>
  );
}
