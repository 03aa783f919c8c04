import { useRef, useState } from 'react';
import { settlementWallets } from '../../../commands/index.ts';
import { errno } from '../../../contract/index.ts';
import { toMinor } from '../../../contract/money.ts';
import { api, base64Of } from '../../lib/api.ts';
import { useT } from '../../lib/useT.ts';
import { DecisionDialog as Decide } from '../../ui/DecisionDialog.tsx';
import { FileField } from '../../ui/fields.tsx';
import { DecimalField, VerbatimField } from '../../ui/form.tsx';
import { money, type Settlement, SettlementSummary, walletApi } from './parts.tsx';
import '../order/order.css';
import './settlement.css';

export type Decision = 'confirm' | 'complete' | 'reject';

/**
 * The rules that refuse a decision, said inside the dialog: the person who confirmed may not complete,
 * a second approval is already asked for, it is on a withdrawal slip, or it moved on meanwhile.
 */
const refusals = [
  errno.sameUser,
  errno.approvalPending,
  errno.onSlip,
  errno.conflict,
  errno.notFound,
  errno.insufficientBalance,
];

const imageTypes = ['image/png', 'image/jpeg', 'image/webp'] as const;
type ImageType = (typeof imageTypes)[number];
/** The server's limits, checked here first so a large photo is refused before it is sent. */
const maxImageBytes = 2 * 1024 * 1024;
const maxImages = 5;

/** Audit amount ÷ price, rounded down to 6 decimals (as the server computes it), or null. */
function usdtOf(audit: string, price: string): string | null {
  if (!/^\d+(\.\d{1,2})?$/.test(audit.trim()) || !/^\d{1,12}(\.\d{1,6})?$/.test(price.trim())) return null;
  const [whole = '0', frac = ''] = price.trim().split('.');
  const priceMicro = BigInt(whole) * 1_000_000n + BigInt(frac.padEnd(6, '0'));
  if (priceMicro === 0n) return null;
  const micro = (BigInt(toMinor(audit.trim())) * 10_000_000_000n) / priceMicro;
  return `${micro / 1_000_000n}.${String(micro % 1_000_000n).padStart(6, '0')}`;
}

/**
 * A platform user's decision on a settlement application, each confirmed with the user's Google code:
 * confirm the audit amount (at most the amount applied; for USDT also the price), complete it with the
 * bank's or the chain's reference and optional proof images, or reject it with a reason.
 */
export default function DecisionDialog({
  settlement,
  decision,
  close,
}: {
  settlement: Settlement;
  decision: Decision;
  close: (result?: unknown) => void;
}) {
  const t = useT();
  const calls = walletApi(settlement.wallet);
  const { base } = settlementWallets[settlement.wallet];
  const usdt = settlement.type === 'usdt';
  const proofs = useProofs(calls.uploadImage);
  const common = {
    title: t(`commands.${base}.${decision}.title`),
    tone: decision === 'reject' ? ('danger' as const) : ('primary' as const),
    refusals,
    close,
    children: (
      <>
        <p className={decision === 'reject' ? 'danger-note' : 'notice'} role="note">
          {t(`screens.settlement.note.${decision}`)}
        </p>
        <SettlementSummary row={settlement} />
        {settlement.approval && (
          <p className="notice" role="status">
            {t('screens.settlement.awaiting', { user: settlement.approval.requestedBy })}
          </p>
        )}
      </>
    ),
  };

  if (decision === 'confirm')
    return (
      <Decide
        {...common}
        endpoint={calls.confirm}
        more={{ auditAmount: settlement.amount, price: '' }}
        input={(v) => ({
          id: settlement.id,
          auditAmount: v.auditAmount.trim(),
          ...(usdt ? { price: v.price.trim() } : {}),
          code: v.code,
        })}
        check={(input) =>
          toMinor(input.auditAmount) > toMinor(settlement.amount)
            ? { auditAmount: t('screens.settlement.auditTooHigh', { amount: money(settlement.amount) }) }
            : undefined
        }
        fields={(form) => {
          const usdtAmount = usdt ? usdtOf(form.values.auditAmount, form.values.price) : null;
          return (
            <>
              <DecimalField
                label={t('screens.settlement.auditAmount')}
                {...form.field('auditAmount')}
                hint={t('screens.settlement.auditHint', { amount: money(settlement.amount) })}
                required
              />
              {usdt && (
                <DecimalField
                  label={t('screens.settlement.price')}
                  {...form.field('price')}
                  hint={
                    usdtAmount
                      ? t('screens.settlement.usdtPreview', { usdt: usdtAmount })
                      : t('screens.settlement.priceHint', { currency: settlement.currency })
                  }
                  required
                />
              )}
            </>
          );
        }}
        done={(done) =>
          done.approval
            ? t('screens.settlement.approvalAsked', { settlementNo: done.settlementNo })
            : t('screens.settlement.confirmedText', {
                settlementNo: done.settlementNo,
                amount: money(done.auditAmount),
              })
        }
      />
    );
  if (decision === 'complete')
    return (
      <Decide
        {...common}
        endpoint={calls.complete}
        more={{ reference: '' }}
        input={(v) => ({ id: settlement.id, reference: v.reference.trim(), code: v.code })}
        prepare={async (input) => {
          const attachments = await proofs.upload();
          return { ...input, ...(attachments.length ? { attachments } : {}) };
        }}
        fields={(form) => (
          <>
            <VerbatimField
              label={t('screens.settlement.reference')}
              {...form.field('reference')}
              hint={t(`screens.settlement.referenceHint.${settlement.type}`)}
              maxLength={100}
              required
            />
            <ProofsField proofs={proofs} />
          </>
        )}
        done={(done) => t('screens.settlement.completedText', { settlementNo: done.settlementNo })}
      />
    );
  return (
    <Decide
      {...common}
      endpoint={calls.reject}
      reason={{ label: t('screens.settlement.reason'), hint: t('screens.settlement.reasonHint') }}
      input={(v) => ({ id: settlement.id, reason: v.reason.trim(), code: v.code })}
      done={(done) => t('screens.settlement.rejectedText', { settlementNo: done.settlementNo })}
    />
  );
}

/** Proof images: each uploaded once, so a retry after a wrong code does not upload them again. */
function useProofs(uploadImage: ReturnType<typeof walletApi>['uploadImage']) {
  const t = useT();
  const [files, setFiles] = useState<File[]>([]);
  const [error, setError] = useState<string | null>(null);
  const uploaded = useRef(new Map<File, number>());
  const choose = (list: FileList | null) => {
    setError(null);
    const chosen = [...(list ?? [])];
    if (chosen.length > maxImages) return setError(t('screens.settlement.tooManyImages', { n: maxImages }));
    if (chosen.some((f) => !imageTypes.includes(f.type as ImageType))) return setError(t('validation.image'));
    if (chosen.some((f) => f.size > maxImageBytes)) return setError(t('validation.imageSize'));
    setFiles(chosen);
  };
  const upload = async (): Promise<number[]> => {
    const ids: number[] = [];
    for (const file of files) {
      let id = uploaded.current.get(file);
      if (id === undefined) {
        const answer = await api(uploadImage, {
          filename: file.name.slice(0, 200),
          mime: file.type as ImageType,
          dataBase64: await base64Of(file),
        });
        id = answer.imageId;
        uploaded.current.set(file, id);
      }
      ids.push(id);
    }
    return ids;
  };
  return { files, error, choose, upload };
}

function ProofsField({ proofs }: { proofs: ReturnType<typeof useProofs> }) {
  const t = useT();
  return (
    <FileField
      label={t('screens.settlement.proofs')}
      error={proofs.error ?? undefined}
      hint={
        proofs.files.length
          ? t('screens.settlement.imagesChosen', { n: proofs.files.length })
          : t('screens.settlement.imagesHint', { n: maxImages })
      }
      accept={imageTypes}
      multiple
      onFiles={proofs.choose}
    />
  );
}
