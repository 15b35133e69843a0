import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { redactArguments } from '../audit/redaction.js';
import type { AggregatorState, ApprovalRecord } from '../state/state.js';
import { type Command, parseFlags, print } from './command.js';
import { openStateFromArgs } from './state-flags.js';

export interface ApprovalsCommandOptions {
  state: AggregatorState;
  print: (line: string) => void;
  /** Ends --watch. */
  signal?: AbortSignal;
  now?: () => number;
  /** How often --watch looks for new approvals. */
  pollMs?: number;
  /** How often --watch says it is still there; the aggregator counts an approver connected for 15 s. */
  heartbeatMs?: number;
}

const SHOWN_ARGUMENT_CHARACTERS = 160;

function ageOf(record: ApprovalRecord, now: number): string {
  const seconds = Math.max(0, Math.round((now - record.createdAt) / 1000));
  return seconds < 120 ? `${seconds}s` : `${Math.round(seconds / 60)}m`;
}

function argumentsLine(record: ApprovalRecord): string {
  // Stored arguments are redacted already; this guards against a writer that did not.
  const text = JSON.stringify(redactArguments(record.arguments));
  return text.length > SHOWN_ARGUMENT_CHARACTERS ? `${text.slice(0, SHOWN_ARGUMENT_CHARACTERS)}…` : text;
}

function printApproval(record: ApprovalRecord, now: number, print: (line: string) => void): void {
  print(
    `${record.id}  ${ageOf(record, now).padStart(4)}  ${record.tool} (${record.server}, ${record.mode} mode): ${record.reason}`,
  );
  print(`    ${argumentsLine(record)}`);
}

/** The login name, or $USER where the system has no entry for this uid (some containers). */
function userName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

/** Why a decision did not land, and what to do instead. */
function notPendingMessage(id: string, record: ApprovalRecord | undefined, now: number): string {
  const next = 'Run toolmesh approvals to list the pending ones.';
  if (!record) return `approval ${id} is not pending: no approval has that id, check it for typos. ${next}`;
  if (record.status === 'pending' && now >= record.expiresAt)
    return `approval ${id} is not pending: it expired, so ${record.tool} will not run; the caller can retry the call. ${next}`;
  const by = record.decidedBy ? ` by ${record.decidedBy}` : '';
  return `approval ${id} is not pending: it was already ${record.status}${by} and cannot be decided again. ${next}`;
}

async function decide(
  verb: 'approve' | 'deny',
  id: string,
  reason: string | undefined,
  { state, print, now = Date.now }: ApprovalsCommandOptions,
): Promise<number> {
  const decided = await state.decideApproval(
    id,
    {
      status: verb === 'approve' ? 'approved' : 'denied',
      decidedBy: `cli:${userName()}`,
      ...(reason !== undefined && { reason }),
    },
    now(),
  );
  if (!decided) {
    print(notPendingMessage(id, await state.approval(id), now()));
    return 1;
  }
  print(`${decided.status}: ${decided.tool} (${decided.server})`);
  return 0;
}

async function list(
  json: boolean,
  { state, print, now = Date.now }: ApprovalsCommandOptions,
): Promise<number> {
  const pending = await state.pendingApprovals(now());
  if (json) print(JSON.stringify(pending, null, 2));
  else if (pending.length === 0) print('no approval is pending');
  else for (const record of pending) printApproval(record, now(), print);
  return 0;
}

/** Heartbeats as an approver and prints each new pending approval once, until the signal aborts. */
async function watch({
  state,
  print,
  signal,
  now = Date.now,
  pollMs = 1000,
  heartbeatMs = 5000,
}: ApprovalsCommandOptions): Promise<number> {
  const name = `cli:${userName()}@${os.hostname()}`;
  let shown = new Set<string>();
  let lastHeartbeat = Number.NEGATIVE_INFINITY;
  print(`watching for approvals as ${name}; decide with: toolmesh approvals approve|deny <id>`);
  while (!signal?.aborted) {
    if (now() - lastHeartbeat >= heartbeatMs) {
      lastHeartbeat = now();
      await state.touchApprover(name, lastHeartbeat);
    }
    const pending = await state.pendingApprovals(now());
    for (const record of pending) if (!shown.has(record.id)) printApproval(record, now(), print);
    // An approval never returns to pending, so only the current ones need remembering.
    shown = new Set(pending.map((record) => record.id));
    await sleep(pollMs, undefined, signal && { signal }).catch(() => undefined);
  }
  return 0;
}

/**
 * `toolmesh approvals`: what waits for a person, `--watch` to keep watching as a connected
 * approver, `approve|deny <id>` to decide. It works on the state directly, so it decides for a
 * toolmesh served over stdio as well as over HTTP. Exit codes: 0 done, 1 not decided, 2 misuse.
 */
export async function approvalsCommand(args: string[], options: ApprovalsCommandOptions): Promise<number> {
  const { values, positionals } = parseFlags('approvals', args, {
    watch: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    reason: { type: 'string' },
  });
  const [verb, id, ...extra] = positionals;
  if (verb === 'approve' || verb === 'deny') {
    if (!id || extra.length > 0 || values.watch || values.json) {
      options.print(
        `usage: toolmesh approvals ${verb} <id> [--reason TEXT]; toolmesh approvals lists the ids`,
      );
      return 2;
    }
    return decide(verb, id, values.reason, options);
  }
  if (verb !== undefined) {
    options.print(`unknown approvals command "${verb}": use approve <id>, deny <id>, or no command to list`);
    return 2;
  }
  if (values.reason !== undefined) {
    options.print('--reason goes with a decision: toolmesh approvals approve|deny <id> --reason TEXT');
    return 2;
  }
  return values.watch ? watch(options) : list(values.json, options);
}

export const approvals: Command = {
  async run(args) {
    const { state, rest } = await openStateFromArgs(args);
    const watching = new AbortController();
    process.once('SIGINT', () => watching.abort());
    process.once('SIGTERM', () => watching.abort());
    try {
      return await approvalsCommand(rest, { state, print, signal: watching.signal });
    } finally {
      await state.close();
    }
  },
};
