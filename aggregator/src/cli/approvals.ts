import os from 'node:os';
import { parseArgs } from 'node:util';
import type { AggregatorState, ApprovalRecord } from '../state/state.js';

export interface ApprovalsCommandOptions {
  state: AggregatorState;
  print: (line: string) => void;
  /** Ends --watch. */
  signal?: AbortSignal;
  now?: () => number;
  /** How often --watch looks again and says it is still there. */
  heartbeatMs?: number;
}

function ageOf(record: ApprovalRecord, now: number): string {
  const seconds = Math.max(0, Math.round((now - record.createdAt) / 1000));
  return seconds < 120 ? `${seconds}s` : `${Math.round(seconds / 60)}m`;
}

function argumentsLine(record: ApprovalRecord): string {
  const text = JSON.stringify(record.arguments);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

function describe(record: ApprovalRecord, now: number): string {
  return `${record.id}  ${ageOf(record, now).padStart(4)}  ${record.tool} (${record.server}, ${record.mode} mode): ${record.reason}\n    ${argumentsLine(record)}`;
}

function person(): string {
  return `cli:${os.userInfo().username}`;
}

/**
 * `toolmesh approvals`: what waits for a person, `--watch` to keep watching as a connected
 * approver, `approve|deny <id>` to decide. It works on the state directly, so it decides for a
 * toolmesh served over stdio as well as over HTTP.
 */
export async function approvalsCommand(args: string[], options: ApprovalsCommandOptions): Promise<number> {
  const { state, print, now = Date.now } = options;
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      watch: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      reason: { type: 'string' },
    },
  });
  const [verb, id, ...extra] = positionals;
  if (verb === 'approve' || verb === 'deny') {
    if (!id || extra.length > 0) {
      print(`usage: toolmesh approvals ${verb} <id> [--reason TEXT]; toolmesh approvals lists the ids`);
      return 2;
    }
    const decided = await state.decideApproval(
      id,
      {
        status: verb === 'approve' ? 'approved' : 'denied',
        decidedBy: person(),
        ...(values.reason !== undefined && { reason: values.reason }),
      },
      now(),
    );
    if (!decided) {
      print(
        `approval ${id} is not pending: it was decided already, it expired, or the id is wrong. Run toolmesh approvals to list the pending ones.`,
      );
      return 1;
    }
    print(`${verb === 'approve' ? 'approved' : 'denied'}: ${decided.tool} (${decided.server})`);
    return 0;
  }
  if (verb !== undefined) {
    print(`unknown approvals command "${verb}": use approve <id>, deny <id>, or no command to list`);
    return 2;
  }
  if (!values.watch) {
    const pending = await state.pendingApprovals(now());
    if (values.json) print(JSON.stringify(pending, null, 2));
    else if (pending.length === 0) print('no approval is pending');
    else for (const record of pending) print(describe(record, now()));
    return 0;
  }
  await watch(options);
  return 0;
}

/** Heartbeats as an approver and prints each new pending approval until the signal aborts. */
async function watch({ state, print, signal, now = Date.now, heartbeatMs = 5000 }: ApprovalsCommandOptions) {
  const name = `${person()}@${os.hostname()}`;
  const shown = new Set<string>();
  print(`watching for approvals as ${name}; decide with: toolmesh approvals approve|deny <id>`);
  while (!signal?.aborted) {
    await state.touchApprover(name, now());
    for (const record of await state.pendingApprovals(now())) {
      if (shown.has(record.id)) continue;
      shown.add(record.id);
      print(describe(record, now()));
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, heartbeatMs);
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  }
}
