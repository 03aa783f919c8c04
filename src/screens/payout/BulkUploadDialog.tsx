import { useId, useState } from 'react';
import { endpoints, errno, type Output } from '../../../contract/index.ts';
import { api, base64Of, isApiError, showRefusal } from '../../lib/api.ts';
import { toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { Badge } from '../../ui/Badge.tsx';
import { FormActions, GoogleCodeField, validate } from '../../ui/form.tsx';
import { HeadedTable } from '../../ui/HeadedTable.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { money } from '../order/parts.tsx';
import '../order/order.css';
import './payout.css';

type Preview = Output<typeof endpoints.merchantPayout.bulkCreate>;

/** Refusals this dialog shows itself: the per-row preview, or the fields. */
const quiet: readonly number[] = [errno.invalid, errno.conflict, errno.insufficientBalance];

/** The server takes files up to 5 MB; a larger one is refused here before it is read. */
const maxFileBytes = 5 * 1024 * 1024;

/**
 * Bulk payouts from a CSV or XLSX file: first a check of every row (nothing is created, the Google code
 * is not used up), with each row's errors; then, when every row is valid, all of them at once.
 */
export default function BulkUploadDialog({ close }: { close: (result?: unknown) => void }) {
  const t = useT();
  const fileId = useId();
  const formRef = useOpeningFocus();
  const [file, setFile] = useState<File | null>(null);
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [preview, setPreview] = useState<Preview | null>(null);
  const [busy, setBusy] = useState(false);

  const send = async (dryRun: boolean) => {
    if (!file) return setErrors({ filename: t('validation.bulkFile') });
    if (file.size > maxFileBytes) return setErrors({ filename: t('screens.payout.bulk.tooLarge') });
    setBusy(true);
    try {
      const input = { filename: file.name, dataBase64: await base64Of(file), code: code.trim(), dryRun };
      const valid = validate(endpoints.merchantPayout.bulkCreate.input, input);
      if (!valid.ok) return setErrors(valid.errors);
      setErrors({});
      const answer = await api(endpoints.merchantPayout.bulkCreate, input, { quiet }).catch(
        (error: unknown) => {
          // Not a refusal (a transport failure, already told), or one `api` has shown itself.
          if (!isApiError(error) || !quiet.includes(error.errno)) return null;
          // A refused file answers its per-row preview in the error's data.
          const data = error.data as Preview | null;
          if (data && typeof data === 'object' && 'errors' in data) return data;
          if (Object.keys(error.fields).length) setErrors(error.fields);
          // Refused without a preview (an order number taken meanwhile): say why, as `api` would.
          else showRefusal(error.errno, error.message);
          return null;
        },
      );
      if (!answer) return;
      setPreview(answer);
      if (!dryRun && answer.created.length > 0) {
        toast(
          'success',
          t('screens.payout.bulk.done', { n: answer.created.length, total: money(answer.total) }),
        );
        close(true);
      }
    } finally {
      setBusy(false);
    }
  };

  const ready = preview?.valid && preview.errors.length === 0;
  return (
    <Modal title={t('commands.merchantPayout.bulkCreate.title')} onClose={() => close()} variant="sheet">
      <form
        ref={formRef}
        className="form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void send(!ready);
        }}
      >
        <div className={`field${errors.filename || errors.dataBase64 ? ' has-error' : ''}`}>
          <label htmlFor={fileId}>{t('screens.payout.bulk.file')}</label>
          <input
            id={fileId}
            type="file"
            accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
            onChange={(e) => {
              setFile(e.target.files?.[0] ?? null);
              setPreview(null);
              setErrors({});
            }}
          />
          {errors.filename || errors.dataBase64 ? (
            <p className="field-error" role="alert">
              {errors.filename ?? errors.dataBase64}
            </p>
          ) : (
            <p className="field-hint">{t('screens.payout.bulk.hint')}</p>
          )}
        </div>
        <GoogleCodeField value={code} onValue={setCode} error={errors.code} />
        {preview && (
          <section className="bulk-preview" aria-label={t('screens.payout.bulk.preview')} aria-live="polite">
            <dl className="order-summary">
              <dt>{t('screens.payout.bulk.rows')}</dt>
              <dd>{preview.rows}</dd>
              <dt>{t('screens.payout.bulk.total')}</dt>
              <dd>{money(preview.total)}</dd>
              <dt>{t('screens.payout.bulk.fees')}</dt>
              <dd>{money(preview.fees)}</dd>
            </dl>
            {preview.errors.length === 0 ? (
              <p className="notice ok-note">{t('screens.payout.bulk.allValid', { n: preview.rows })}</p>
            ) : (
              <div className="bulk-table-wrap">
                <HeadedTable
                  className="bulk-table"
                  headings={[
                    t('screens.payout.bulk.row'),
                    t('screens.payout.bulk.field'),
                    t('screens.payout.bulk.message'),
                  ]}
                >
                  {preview.errors.map((e) => (
                    <tr key={`${e.row}-${e.field}-${e.message}`}>
                      <td>{e.row === 0 ? t('screens.payout.bulk.wholeFile') : e.row}</td>
                      <td>
                        <Badge tone="bad">
                          {['accountName', 'accountNumber', 'ifsc', 'amount', 'merchantOrderNo'].includes(
                            e.field,
                          )
                            ? t(`screens.payout.${e.field}`)
                            : e.field}
                        </Badge>
                      </td>
                      <td>{e.message}</td>
                    </tr>
                  ))}
                </HeadedTable>
              </div>
            )}
          </section>
        )}
        <FormActions
          busy={busy}
          onCancel={() => close()}
          submitLabel={
            ready
              ? t('screens.payout.bulk.create', { n: preview.rows, total: money(preview.total) })
              : t('screens.payout.bulk.check')
          }
          disabled={!ready && !file}
        />
      </form>
    </Modal>
  );
}
