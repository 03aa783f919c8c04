import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { endpoints } from '../../../contract/index.ts';
import { api } from '../../lib/api.ts';
import { formatTime } from '../../lib/format.ts';
import { useT } from '../../lib/useT.ts';
import { DetailSection } from '../../ui/DetailDrawer.tsx';
import type { DisputeInfo } from './parts.tsx';

type Evidence = DisputeInfo['evidence'][number];

/** The case's evidence, oldest first: each note with who added it and when, and its file when it has one. */
export function EvidenceList({ dispute }: { dispute: DisputeInfo }) {
  const t = useT();
  return (
    <DetailSection title={t('screens.dispute.evidenceTitle', { n: dispute.evidence.length })}>
      {dispute.evidence.length === 0 ? (
        <p className="muted">{t('screens.dispute.noEvidence')}</p>
      ) : (
        <ol className="dispute-evidence">
          {dispute.evidence.map((e) => (
            <li key={e.id}>
              <p className="muted">
                {t(`screens.dispute.sides.${e.side}`)}
                {e.addedBy ? ` · ${e.addedBy}` : ''} · {formatTime(e.createdAt)}
              </p>
              {e.note && <p className="dispute-note">{e.note}</p>}
              {e.filename && <EvidenceFile disputeId={dispute.id} evidence={e} />}
            </li>
          ))}
        </ol>
      )}
    </DetailSection>
  );
}

/** A file of the evidence: its name until asked for, then the image itself (a link that downloads it). */
function EvidenceFile({ disputeId, evidence }: { disputeId: number; evidence: Evidence }) {
  const t = useT();
  const [shown, setShown] = useState(false);
  const file = useQuery({
    queryKey: ['dispute-evidence-file', disputeId, evidence.id],
    queryFn: ({ signal }) =>
      api(endpoints.dispute.evidenceFile, { id: disputeId, evidenceId: evidence.id }, { signal }),
    enabled: shown,
    staleTime: Number.POSITIVE_INFINITY,
  });
  if (!shown)
    return (
      <button type="button" className="link" onClick={() => setShown(true)}>
        {t('screens.dispute.showFile', { name: evidence.filename ?? '' })}
      </button>
    );
  if (!file.data) return <div className="proof-image placeholder" aria-busy="true" />;
  const src = `data:${file.data.mime};base64,${file.data.dataBase64}`;
  return (
    <a className="proof-image" href={src} download={file.data.filename} title={file.data.filename}>
      <img src={src} alt={file.data.filename} />
    </a>
  );
}
