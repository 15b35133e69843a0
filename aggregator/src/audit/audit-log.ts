import type { Logger } from '@toolmesh/core';
import type { AggregatorState } from '../state/state.js';
import type { AuditQuery, AuditRecord } from './audit-record.js';
import { AuditedCall, type AuditSubject, type InFlightCalls } from './audited-call.js';

export interface AuditSettings {
  /** false: nothing is recorded (to measure the audit's cost, or where another layer keeps the log). */
  enabled: boolean;
  retentionDays: number;
}

export interface AuditLogOptions {
  state: AggregatorState;
  log: Logger;
  /** Read on every use, so a reloaded config applies at once. */
  settings: () => AuditSettings;
  now?: () => number;
}

function causeOf(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}

const WHAT_TO_DO =
  'Free disk space where the state file is (or check that the file is writable and not damaged), then retry; records held meanwhile are written first.';

/**
 * The log of every call that reached policy, kept in the state. It fails closed: a record that
 * cannot be written is held (and logged at error level), the call that made it gets an error
 * instead of its result, and every later call is refused before it runs until the held records
 * are written. Each call retries them, so the log recovers by itself once space is back.
 */
export class AuditLog {
  readonly #options: Required<AuditLogOptions>;
  #held: AuditRecord[] = [];
  #lastCause = '';
  #draining: Promise<string | undefined> | undefined;
  /** Where calls are marked while they run, when another process must learn of those this one leaves unfinished (a fleet). */
  inFlight: InFlightCalls | undefined;

  constructor(options: AuditLogOptions) {
    this.#options = { now: Date.now, ...options };
  }

  get enabled(): boolean {
    return this.#options.settings().enabled;
  }

  /** Records not yet written because the state refused them. */
  get held(): readonly AuditRecord[] {
    return this.#held;
  }

  /** The record of a call that arrives now. */
  open(subject: AuditSubject): AuditedCall {
    return new AuditedCall(subject, this.#options.now(), this.inFlight);
  }

  /**
   * Undefined when calls may run; otherwise why not, after one more try at writing what is held.
   * Nothing is held while the audit is off.
   */
  refusal(): Promise<string | undefined> {
    if (this.#held.length === 0) return Promise.resolve(undefined);
    // Calls arriving together share one retry, or two of them could write the same held record.
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = undefined;
    });
    return this.#draining;
  }

  async #drain(): Promise<string | undefined> {
    const held = this.#held.length;
    while (this.#held.length > 0) {
      try {
        await this.#options.state.recordAudit(this.#held[0] as AuditRecord);
      } catch (error) {
        this.#lastCause = causeOf(error);
        this.#options.log.error(
          `audit log still cannot be written to ${this.#options.state.location}: ${this.#lastCause}; refusing calls, ${this.#held.length} records held`,
        );
        return `toolmesh refuses every call until its audit log can be written again: writing to ${this.#options.state.location} failed (${this.#lastCause}), and ${this.#held.length} audit records wait to be written. This call did not run. ${WHAT_TO_DO}`;
      }
      this.#held.shift();
    }
    this.#options.log.warning(
      `audit log writable again at ${this.#options.state.location}: wrote the ${held} held records`,
    );
    return undefined;
  }

  /**
   * Writes the record of a finished call. Undefined once written; otherwise what the call's
   * client must be told instead of the result: the call ran, but its record is only held.
   */
  async write(record: AuditRecord): Promise<string | undefined> {
    if (!this.enabled) return undefined;
    // Behind held records a new one waits its turn, so the log keeps the order calls ended in.
    if (this.#held.length === 0) {
      try {
        await this.#options.state.recordAudit(record);
        return undefined;
      } catch (error) {
        this.#lastCause = causeOf(error);
      }
    }
    this.#held.push(record);
    this.#options.log.error(
      `audit record could not be written to ${this.#options.state.location}: ${this.#lastCause}; holding it and refusing calls until it is written`,
      { time: record.time, identity: record.identity, tool: record.tool, outcome: record.outcome },
    );
    const what = record.outcome === 'refused' ? 'did not run' : `ran (outcome ${record.outcome})`;
    return `${record.tool} ${what}, but toolmesh could not write its audit record to ${this.#options.state.location} (${this.#lastCause}), so its result is withheld and every call is refused until the audit log can be written. ${WHAT_TO_DO}`;
  }

  query(query: AuditQuery): Promise<AuditRecord[]> {
    return this.#options.state.auditRecords(query);
  }
}
