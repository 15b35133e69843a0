import { performance } from 'node:perf_hooks';
import { digestArguments } from './arguments-digest.js';
import type {
  ArgumentsDigest,
  AuditApproval,
  AuditDecision,
  AuditOutcome,
  AuditRecord,
} from './audit-record.js';
import { redactSecretText } from './redaction.js';

/** Who makes a call, fixed when it arrives. */
export interface AuditSubject {
  identity: string;
  session: string;
  mode: string;
}

/** The tool a policy decision was about. */
export interface DecidedTool {
  tool: string;
  server: string;
  workspace?: string;
  arguments: Record<string, unknown>;
}

/**
 * A call as it stands while it runs, marked where another process can see it: if this one dies
 * mid-call, whoever notices records it as cut off. `pendingApproval` names the approval it waits
 * on, which is then closed, so nobody approves a call that can no longer run.
 */
export type InFlightCall = Omit<AuditRecord, 'approval' | 'outcome' | 'error' | 'durationMs'> & {
  pendingApproval?: string;
};

/** Where calls are marked while they run (a fleet's replica marks them in Redis). */
export interface InFlightCalls {
  /** Marks the call `id` (again, as it now stands). */
  mark(id: string, call: InFlightCall): void;
  /** The call ended and its record was written (or held): the mark goes. */
  unmark(id: string): void;
}

let lastCallId = 0;

/** Policy's decision on a call, and the digest of its arguments once taken. */
interface Decided {
  tool: DecidedTool;
  decision: AuditDecision;
  rule: string;
  digest?: ArgumentsDigest;
}

/** Long enough for any message toolmesh writes, short enough that a chatty server cannot bloat the log. */
const MAX_ERROR_CHARACTERS = 1000;

/**
 * The audit record of one call while it runs, filled in as the call goes: the policy decision
 * and the tool it was about, the approval, the outcome. A call that reaches policy more than
 * once (call_tool, then its target) keeps the last decision: the record describes what ran.
 */
export class AuditedCall {
  readonly #subject: AuditSubject;
  readonly #time: number;
  readonly #started = performance.now();
  #decided?: Decided;
  #approval?: AuditApproval;
  #ended?: { outcome: AuditOutcome; error?: string };
  readonly #inFlight: { calls: InFlightCalls; id: string; marked: boolean } | undefined;

  constructor(subject: AuditSubject, time: number, inFlight?: InFlightCalls) {
    this.#subject = subject;
    this.#time = time;
    this.#inFlight = inFlight && { calls: inFlight, id: String(++lastCallId), marked: false };
  }

  /** Policy decided on `tool`; what was learned about an earlier decision no longer applies. */
  decided(tool: DecidedTool, decision: AuditDecision, rule: string): void {
    this.#decided = { tool, decision, rule };
    this.#approval = undefined;
    this.#ended = undefined;
    this.#mark();
  }

  /** The call waits on approval `id`: should this process die meanwhile, it is closed unanswered. */
  awaitingApproval(id: string): void {
    this.#mark(id);
  }

  /** The call is over and its record written or held: it is no longer in flight. */
  settled(): void {
    if (!this.#inFlight?.marked) return;
    this.#inFlight.marked = false;
    this.#inFlight.calls.unmark(this.#inFlight.id);
  }

  /** The arguments' digest, taken once: the mark and the record both show it. */
  #digest(decided: Decided): ArgumentsDigest {
    decided.digest ??= digestArguments(decided.tool.arguments);
    return decided.digest;
  }

  /**
   * What is known of the call once policy decided on it: all of its record but how it ended, a
   * new object each time. Its fields are set one by one, in the record's order, rather than
   * spread: this runs on every call.
   */
  #asDecided(decided: Decided): InFlightCall {
    const { tool, decision, rule } = decided;
    const { identity, session, mode } = this.#subject;
    const call: InFlightCall = { time: this.#time, identity, session, mode } as InFlightCall;
    if (tool.workspace !== undefined) call.workspace = tool.workspace;
    call.tool = tool.tool;
    call.server = tool.server;
    call.argumentsDigest = this.#digest(decided);
    call.decision = decision;
    call.rule = rule;
    return call;
  }

  #mark(pendingApproval?: string): void {
    if (!this.#inFlight || !this.#decided) return;
    this.#inFlight.marked = true;
    const call = this.#asDecided(this.#decided);
    if (pendingApproval !== undefined) call.pendingApproval = pendingApproval;
    this.#inFlight.calls.mark(this.#inFlight.id, call);
  }

  approved(status: AuditApproval): void {
    this.#approval = status;
  }

  /** The first outcome stands: the innermost code that knows why a call failed says it first. */
  ended(outcome: AuditOutcome, error?: string): void {
    if (this.#ended) return;
    this.#ended = {
      outcome,
      ...(error !== undefined && { error: redactSecretText(error).slice(0, MAX_ERROR_CHARACTERS) }),
    };
  }

  get reachedPolicy(): boolean {
    return this.#decided !== undefined;
  }

  get outcome(): AuditOutcome | undefined {
    return this.#ended?.outcome;
  }

  /** The finished record; undefined for a call that never reached policy (an unknown tool). */
  record(): AuditRecord | undefined {
    if (!this.#decided) return undefined;
    const ended = this.#ended;
    if (!ended)
      throw new Error(
        `the audit record of ${this.#decided.tool.tool} was closed before its outcome was known`,
      );
    // Completed below with every field a record has beyond the decided call's.
    const record = this.#asDecided(this.#decided) as AuditRecord;
    if (this.#approval) record.approval = this.#approval;
    record.outcome = ended.outcome;
    if (ended.error !== undefined) record.error = ended.error;
    record.durationMs = Math.round((performance.now() - this.#started) * 100) / 100;
    return record;
  }
}
