import { performance } from 'node:perf_hooks';
import { digestArguments } from './arguments-digest.js';
import type { AuditApproval, AuditDecision, AuditOutcome, AuditRecord } from './audit-record.js';
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
  #decided?: { tool: DecidedTool; decision: AuditDecision; rule: string };
  #approval?: AuditApproval;
  #ended?: { outcome: AuditOutcome; error?: string };

  constructor(subject: AuditSubject, time: number) {
    this.#subject = subject;
    this.#time = time;
  }

  /** Policy decided on `tool`; what was learned about an earlier decision no longer applies. */
  decided(tool: DecidedTool, decision: AuditDecision, rule: string): void {
    this.#decided = { tool, decision, rule };
    this.#approval = undefined;
    this.#ended = undefined;
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
    const { tool, decision, rule } = this.#decided;
    return {
      time: this.#time,
      ...this.#subject,
      ...(tool.workspace !== undefined && { workspace: tool.workspace }),
      tool: tool.tool,
      server: tool.server,
      argumentsDigest: digestArguments(tool.arguments),
      decision,
      rule,
      ...(this.#approval && { approval: this.#approval }),
      ...ended,
      durationMs: Math.round((performance.now() - this.#started) * 100) / 100,
    };
  }
}
