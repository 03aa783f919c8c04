import { useStore } from '@nanostores/react';
import { useEffect, useRef, useState } from 'react';
import { allows, endpoints, errno, type Output } from '../../../contract/index.ts';
import { payin } from '../../../contract/machines.ts';
import { api } from '../../lib/api.ts';
import { formatTime } from '../../lib/format.ts';
import { $grants } from '../../lib/session.ts';
import { useT } from '../../lib/useT.ts';
import { DetailFields } from '../../ui/DetailDrawer.tsx';
import { useForm, VerbatimField, validate } from '../../ui/form.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import { OrderSummary } from './OrderSummary.tsx';
import { money, type Payin } from './parts.tsx';
import './order.css';

type Check = Output<typeof endpoints.merchantOrder.utrCheck>;

interface Props {
  /** The order the payment should belong to; without it the UTR is looked up on its own. */
  order?: Payin | undefined;
  close: (result?: unknown) => void;
}

/**
 * UTR check: where the payment with this UTR was found (channel or bank statement), its amount, time
 * and account, and whether another order already used it. When it belongs to this order and is unused,
 * it offers the supplement with the UTR and the amount found (the command opens that form next).
 */
export default function UtrCheckDialog({ order, close }: Props) {
  const t = useT();
  const formRef = useOpeningFocus();
  const grants = useStore($grants);
  const form = useForm({ utr: '' });
  const [checked, setChecked] = useState<{ utr: string; result: Check } | null>(null);
  const supplementRef = useRef<HTMLButtonElement>(null);
  const canSupplement =
    !!order && payin.can('supplement', order.status) && allows(grants, [endpoints.merchantOrder.supplement]);
  const offer = canSupplement && checked?.result.found && checked.result.matchesOrder;

  useEffect(() => {
    if (offer) supplementRef.current?.focus();
  }, [offer]);

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    void form.submit(async () => {
      const input = { utr: form.values.utr, ...(order ? { id: order.id } : {}) };
      const valid = validate(endpoints.merchantOrder.utrCheck.input, input);
      if (!valid.ok) return form.setErrors(valid.errors);
      setChecked(null);
      const result = await api(endpoints.merchantOrder.utrCheck, valid.data, { quiet: [errno.invalid] });
      setChecked({ utr: valid.data.utr, result });
    });
  };

  const r = checked?.result;
  return (
    <Modal
      title={
        order
          ? t('screens.order.utrCheck.titleFor', { orderNo: order.orderNo })
          : t('screens.order.utrCheck.title')
      }
      onClose={() => close()}
    >
      <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
        {order && <OrderSummary order={order} />}
        <VerbatimField
          label={t('screens.order.utr')}
          value={form.values.utr}
          onValue={(v) => {
            form.set('utr', v);
            setChecked(null);
          }}
          error={form.errors.utr}
          hint={t('validation.utr')}
        />
        {r && (
          <section
            className={`utr-result ${r.found ? 'found' : 'missing'}`}
            aria-label={t('screens.order.utrCheck.result')}
            aria-live="polite"
          >
            <h3>
              {r.found
                ? t(`screens.order.utrCheck.found.${r.source ?? 'channel'}`)
                : t('screens.order.utrCheck.notFound')}
            </h3>
            <DetailFields
              items={[
                ...(r.found
                  ? [
                      { label: t('screens.order.utrCheck.amount'), value: money(r.amount) },
                      { label: t('screens.order.utrCheck.at'), value: formatTime(r.at) },
                      { label: t('screens.order.utrCheck.account'), value: r.account, mono: true },
                      { label: t('screens.order.channelOrderId'), value: r.channelOrderId, mono: true },
                    ]
                  : []),
                {
                  label: t('screens.order.utrCheck.usedBy'),
                  value: r.usedBy ?? t('screens.order.utrCheck.unused'),
                  mono: r.usedBy !== null,
                },
                ...(order && r.matchesOrder !== null
                  ? [
                      {
                        label: t('screens.order.utrCheck.matches'),
                        value: t(r.matchesOrder ? 'screens.order.utrCheck.yes' : 'screens.order.utrCheck.no'),
                      },
                    ]
                  : []),
              ]}
            />
          </section>
        )}
        <div className="form-actions">
          <button type="button" className="button" onClick={() => close()}>
            {t('app.close')}
          </button>
          {offer ? (
            <button
              ref={supplementRef}
              type="button"
              className="button primary"
              onClick={() => close({ supplement: { utr: checked.utr, paidAmount: r?.amount ?? '' } })}
            >
              {t('screens.order.utrCheck.supplement')}
            </button>
          ) : (
            <button type="submit" className="button primary" disabled={form.busy}>
              {t('screens.order.utrCheck.check')}
            </button>
          )}
        </div>
      </form>
    </Modal>
  );
}
