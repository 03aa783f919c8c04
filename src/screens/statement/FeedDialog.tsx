import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { endpoints, errno } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { formatTime, thousands } from '../../lib/format.ts';
import { confirm, toast } from '../../lib/notify.ts';
import { useT } from '../../lib/useT.ts';
import { UnboundNotice, useCodeConfirmed } from '../../ui/codeConfirmed.tsx';
import { CheckField, TextAreaField } from '../../ui/fields.tsx';
import { CodeAndActions, Field, RefusalNote, useForm, VerbatimField, validate } from '../../ui/form.tsx';
import { HeadedTable } from '../../ui/HeadedTable.tsx';
import { Modal } from '../../ui/Modal.tsx';
import { useOpeningFocus } from '../../ui/openingFocus.ts';
import './statement.css';

const { statementFeed } = endpoints;

interface Props {
  account: { id: number; bankName: string; accountNumber: string };
  close: (result?: unknown) => void;
}

/**
 * A receiving account's bank feed (docs/STATEMENTS.md "Bank feed (SFTP)"): its SFTP settings (the key
 * written, never shown), whether it reads, a test of the connection, and the files it took. Saving and
 * deleting ask the Google code: where the bank's word comes from is a money decision, and a feed switched
 * on or changed while on is sent to a second person (docs/SECURITY.md), which the dialog says.
 */
export default function FeedDialog({ account, close }: Props) {
  const t = useT();
  const current = useQuery({
    queryKey: ['statementFeed', account.id],
    queryFn: () => api(statementFeed.get, { accountId: account.id }),
  });
  const files = useQuery({
    queryKey: ['statementFeed', account.id, 'files'],
    queryFn: () => api(statementFeed.files, { accountId: account.id, pageSize: 20 }),
  });
  const feed = current.data?.feed ?? null;
  const pending = current.data?.pending ?? null;
  if (current.isPending) return null;
  return (
    <Modal title={t('statementFeed.title')} onClose={() => close()}>
      <FeedForm
        key={`${feed?.updatedAt ?? 'new'} ${pending?.approvalId ?? ''}`}
        account={account}
        feed={feed}
        pending={pending}
        close={close}
        onSaved={() => {
          void current.refetch();
          void files.refetch();
        }}
      />
      <h3>{t('statementFeed.files')}</h3>
      {files.data?.list.length ? (
        <HeadedTable
          className="statement-post-lines"
          label={t('statementFeed.files')}
          headings={[
            t('statementFeed.columns.name'),
            t('statementFeed.columns.size'),
            t('statementFeed.columns.mtime'),
            t('statementFeed.columns.outcome'),
          ]}
        >
          {files.data.list.map((f) => (
            <tr key={f.id}>
              <td className="mono">{f.remoteName}</td>
              <td>{thousands(f.size)}</td>
              <td>{formatTime(f.mtime)}</td>
              <td>
                {f.importId !== null ? t('statementFeed.imported', { id: f.importId }) : (f.error ?? '')}
              </td>
            </tr>
          ))}
        </HeadedTable>
      ) : (
        <p className="muted">{t('statementFeed.noFiles')}</p>
      )}
    </Modal>
  );
}

type Current = Awaited<ReturnType<typeof api<typeof statementFeed.get>>>;
type Feed = NonNullable<Current['feed']>;

function FeedForm({
  account,
  feed,
  pending,
  close,
  onSaved,
}: Props & { feed: Feed | null; pending: Current['pending']; onSaved: () => void }) {
  const t = useT();
  const formRef = useOpeningFocus();
  const form = useForm({
    host: feed?.host ?? '',
    port: String(feed?.port ?? 22),
    username: feed?.username ?? '',
    privateKey: '',
    hostKeyFingerprint: feed?.hostKeyFingerprint ?? '',
    folder: feed?.folder ?? '',
    pattern: feed?.pattern ?? '*.sta',
    enabled: feed?.enabled ?? true,
    code: '',
  });
  const { values, set } = form;
  // Sent to a second person: the dialog stays, saying what waits.
  const { unbound, refusal, call } = useCodeConfirmed(form, [errno.approvalPending], onSaved);
  const [tested, setTested] = useState<string | null>(null);

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    void form.submit(async () => {
      const input = {
        accountId: account.id,
        host: values.host,
        port: values.port,
        username: values.username,
        ...(values.privateKey.trim() ? { privateKey: values.privateKey } : {}),
        hostKeyFingerprint: values.hostKeyFingerprint,
        folder: values.folder,
        pattern: values.pattern,
        enabled: values.enabled,
        code: values.code.trim(),
      };
      const valid = validate(statementFeed.save.input, input);
      if (!valid.ok) return form.setErrors(valid.errors);
      const done = await call(statementFeed.save, valid.data);
      if (!done) return;
      toast('success', t('app.saved'));
      onSaved();
    });
  };

  const onDelete = () =>
    void form.submit(async () => {
      if (
        !(await confirm({
          title: t('statementFeed.delete'),
          text: t('statementFeed.deleteConfirm'),
          danger: true,
          confirmLabel: t('statementFeed.delete'),
        }))
      )
        return;
      const done = await call(statementFeed.delete, { accountId: account.id, code: values.code.trim() });
      if (!done) return;
      toast('success', t('statementFeed.deleted'));
      close(true);
    });

  const onTest = () =>
    void form.submit(async () => {
      const answer = await api(statementFeed.test, { accountId: account.id });
      setTested(
        answer.ok
          ? t('statementFeed.testOk', { n: answer.files.length })
          : t('statementFeed.testFailed', { error: answer.error ?? '' }),
      );
    });

  return (
    <form ref={formRef} className="form" onSubmit={onSubmit} noValidate>
      <p className="notice" role="note">
        {t('statementFeed.intro')}
      </p>
      <p className="muted">
        {feed
          ? [
              !feed.enabled
                ? t('statementFeed.disabled')
                : feed.consecutiveFailures
                  ? t('statementFeed.failing', {
                      count: feed.consecutiveFailures,
                      error: feed.lastError ?? '',
                    })
                  : t('statementFeed.healthy'),
              feed.lastPolledAt
                ? t('statementFeed.lastPolled', { at: formatTime(feed.lastPolledAt) })
                : t('statementFeed.neverPolled'),
              feed.importAs ? t('statementFeed.importAs', { user: feed.importAs }) : '',
            ]
              .filter(Boolean)
              .join(' · ')
          : t('statementFeed.none')}
      </p>
      {pending && (
        <p className="notice" role="status">
          {t('statementFeed.pending', {
            id: pending.approvalId,
            user: pending.requestedBy,
            at: formatTime(pending.requestedAt),
          })}
        </p>
      )}
      <VerbatimField label={t('statementFeed.host')} {...form.field('host')} required />
      <Field label={t('statementFeed.port')} {...form.field('port')} inputMode="numeric" />
      <VerbatimField label={t('statementFeed.username')} {...form.field('username')} required />
      <TextAreaField
        label={t('statementFeed.privateKey')}
        {...form.field('privateKey')}
        hint={t(feed?.keySet ? 'statementFeed.privateKeyKeep' : 'statementFeed.privateKeyHint')}
        rows={4}
        spellCheck={false}
        autoComplete="off"
      />
      <VerbatimField
        label={t('statementFeed.fingerprint')}
        {...form.field('hostKeyFingerprint')}
        hint={t('statementFeed.fingerprintHint')}
        required
      />
      <VerbatimField label={t('statementFeed.folder')} {...form.field('folder')} required />
      <VerbatimField
        label={t('statementFeed.pattern')}
        {...form.field('pattern')}
        hint={t('statementFeed.patternHint')}
        required
      />
      <CheckField
        label={t('statementFeed.enabled')}
        checked={values.enabled}
        onChecked={(on) => set('enabled', on)}
      />
      {(feed || pending) && (
        <div className="form-actions">
          {feed && (
            <button type="button" className="button" onClick={onTest} disabled={form.busy}>
              {t('statementFeed.test')}
            </button>
          )}
          <button type="button" className="button danger" onClick={onDelete} disabled={form.busy}>
            {t('statementFeed.delete')}
          </button>
        </div>
      )}
      {tested && (
        <p className="notice" role="status">
          {tested}
        </p>
      )}
      <RefusalNote refusal={refusal} />
      {unbound && <UnboundNotice close={() => close()} />}
      <CodeAndActions form={form} onCancel={() => close()} submitLabel={t('statementFeed.save')} />
    </form>
  );
}
