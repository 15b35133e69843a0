import { useState } from 'preact/hooks';
import { getJson, type Me, postJson } from '../api';
import { clockTime, span } from '../format';
import { useLive, useNow } from '../live';

interface Approval {
  id: string;
  tool: string;
  server: string;
  identity: string;
  mode: string;
  workspace?: string;
  reason: string;
  /** Rendered and redacted by the server, one argument a line: shown as text, never as HTML. */
  arguments: string;
  status: string;
  createdAt: number;
  expiresAt: number;
  decidedAt?: number;
  decidedBy?: string;
  decisionReason?: string;
  /** Whether the viewer's own token asked for it: then another approver decides. */
  ownCall?: boolean;
}

interface Queue {
  now: number;
  canDecide: boolean;
  identity: string;
  pending: Approval[];
  history: Approval[];
}

function PendingApproval({
  approval,
  me,
  canDecide,
  skewMs,
}: {
  approval: Approval;
  me: Me;
  canDecide: boolean;
  skewMs: number;
}) {
  const now = useNow();
  const [reason, setReason] = useState('');
  const [outcome, setOutcome] = useState<string>();
  const [busy, setBusy] = useState(false);
  const decide = async (decision: 'approve' | 'deny') => {
    setBusy(true);
    try {
      await postJson(me, `/approvals/${encodeURIComponent(approval.id)}`, {
        decision,
        ...(reason.trim() && { reason: reason.trim() }),
      });
      setOutcome(decision === 'approve' ? 'Approved.' : 'Denied.');
    } catch (failure) {
      setOutcome((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const reasonId = `reason-${approval.id}`;
  return (
    <article class="approval" data-approval={approval.id} aria-labelledby={`title-${approval.id}`}>
      <header>
        <h2 id={`title-${approval.id}`}>
          <code>{approval.tool}</code> <small>on {approval.server}</small>
        </h2>
        <p class="meta">
          <span>
            asked by <strong>{approval.identity}</strong>
          </span>
          <span>
            mode <strong>{approval.mode}</strong>
          </span>
          <span>
            workspace <strong>{approval.workspace ?? 'none'}</strong>
          </span>
          {/* Inside the page's live region: a countdown announced every second would drown everything else. */}
          <span class="time-left" aria-live="off">
            {span(approval.expiresAt - (now + skewMs))} left
          </span>
        </p>
      </header>
      <p>Why: {approval.reason}</p>
      <figure>
        <figcaption>Arguments</figcaption>
        <pre class="arguments">{approval.arguments}</pre>
      </figure>
      {!canDecide ? (
        <p class="notice">
          Your token may see approvals but not decide them: sign in with an approver token.
        </p>
      ) : approval.ownCall ? (
        <p class="notice">You asked for this call, so another approver decides it.</p>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
          }}
        >
          <label for={reasonId}>Reason (told to the client)</label>
          <input
            id={reasonId}
            type="text"
            maxLength={2000}
            value={reason}
            onInput={(event) => setReason((event.target as HTMLInputElement).value)}
          />
          <div class="actions">
            <button type="button" disabled={busy} onClick={() => void decide('approve')}>
              Approve
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => void decide('deny')}>
              Deny
            </button>
          </div>
        </form>
      )}
      {outcome ? <p role="status">{outcome}</p> : null}
    </article>
  );
}

export function ApprovalsPage({ me }: { me: Me }) {
  const [queue, setQueue] = useState<Queue>();
  const [skewMs, setSkewMs] = useState(0);
  const [error, setError] = useState<string>();
  useLive(['approvals'], () => {
    getJson<Queue>('/queue')
      .then((found) => {
        setQueue(found);
        setSkewMs(found.now - Date.now());
        setError(undefined);
      })
      .catch((failure: Error) => setError(failure.message));
  });
  return (
    <section aria-labelledby="approvals-title">
      <hgroup>
        <h1 id="approvals-title">Approvals</h1>
        <p>Calls waiting for a person. New requests appear here as they arrive.</p>
      </hgroup>
      {error ? <p role="alert">{error}</p> : null}
      <div aria-live="polite">
        {!queue ? (
          <p aria-busy="true">Loading…</p>
        ) : queue.pending.length === 0 ? (
          <p class="empty">Nothing waits for approval.</p>
        ) : (
          queue.pending.map((approval) => (
            <PendingApproval
              key={approval.id}
              approval={approval}
              me={me}
              canDecide={queue.canDecide}
              skewMs={skewMs}
            />
          ))
        )}
      </div>
      <h2>History</h2>
      {queue && queue.history.length > 0 ? (
        <div class="overflow-auto">
          <table class="striped">
            <thead>
              <tr>
                <th scope="col">Asked</th>
                <th scope="col">Tool</th>
                <th scope="col">Who asked</th>
                <th scope="col">Mode</th>
                <th scope="col">Outcome</th>
                <th scope="col">Decided by</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {queue.history.map((approval) => (
                <tr key={approval.id}>
                  <td>{clockTime(approval.createdAt)}</td>
                  <td>
                    <code>{approval.tool}</code>
                  </td>
                  <td>{approval.identity}</td>
                  <td>{approval.mode}</td>
                  <td>
                    <span class={`badge status-${approval.status}`}>{approval.status}</span>
                  </td>
                  <td>{approval.decidedBy ?? '—'}</td>
                  <td class="wrap">{approval.decisionReason ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p>No decided approval yet.</p>
      )}
    </section>
  );
}
