import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { requestController } from '@toolmesh/core';
import type { AuditedCall } from '../audit/audited-call.js';
import type { CallChannel, Extra } from './call-channel.js';
import type { ActiveCall, ClientSession } from './session.js';

/** What a downstream server asks its client (elicitation, sampling, roots), as MRTR carries it. */
export interface InputRequest {
  method: string;
  params?: Record<string, unknown>;
}

/** A question of the server, waiting for the client's answer. */
interface Question {
  /** Its key in `inputRequests` and `inputResponses`. */
  key: string;
  request: InputRequest;
  /** Put to the client in the round under way; one the retry leaves unanswered is put again. */
  asked: boolean;
  answer(response: Record<string, unknown>): void;
  fail(error: unknown): void;
}

/** How a round of a parked call ends: the call's result, or questions for the client. */
export type RoundEnd = { result: CallToolResult } | { questions: InputRequest[]; keys: string[] };

/** Whom and what a parked call's request state is bound to. */
export interface ParkedCallFacts {
  /** The state id of the caller's principal. */
  principal: string;
  /** The tool as the client called it, and its arguments. */
  tool: string;
  arguments: Record<string, unknown>;
  session: ClientSession;
  /** Its audit record, written once the call ends. */
  audit: AuditedCall;
}

/**
 * A 2026-07-28 client's call whose server asked the client something. The client cannot be sent
 * a request, so the call's answer is `input_required` with the question, while the call to the
 * server goes on here; the client's retry brings the answer, and the call goes on in that retry
 * until its result or the next question. The server's call is cancelled by this call's own
 * signal, which the request of the round under way is linked to while it lasts.
 */
export class ParkedCall {
  #id: string | undefined;
  /** Rounds put to the client so far: the round a retry answers must be the last. */
  round = 0;
  readonly #abort: AbortController;
  readonly #questions: Question[] = [];
  #asked = 0;
  /** How the call to the server ended, once it did: its result, or the protocol error it threw. */
  #outcome: { result: CallToolResult } | { error: unknown } | undefined;
  #settled: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #unlink: (() => void) | undefined;
  /** How the call reaches its client; its request moves to each round's. */
  readonly channel: CallChannel;

  constructor(
    readonly facts: ParkedCallFacts,
    firstRound: Extra,
    channelFor: (active: ActiveCall) => CallChannel,
  ) {
    // The first round's own controller when it has one that nothing aborts once that request is
    // answered (see requestController): the call's signal is then that request's, and the first
    // round needs no signal of the call's own linked to it, which costs more than the rest of it.
    this.#abort = requestController(firstRound) ?? new AbortController();
    const active: ActiveCall = {
      send: ((request: InputRequest, _schema: unknown, options?: { signal?: AbortSignal }) =>
        this.#ask(request, options?.signal)) as unknown as ActiveCall['send'],
    };
    this.channel = channelFor(active);
    this.bind(firstRound);
  }

  /** Made when first asked for: a call that is never parked never needs one. */
  get id(): string {
    this.#id ??= randomUUID();
    return this.#id;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Starts the call to the server, once. */
  start(call: (signal: AbortSignal) => Promise<CallToolResult>): void {
    this.#settled = call(this.signal).then(
      (result) => this.#ended({ result }),
      (error: unknown) => this.#ended({ error }),
    );
  }

  #ended(outcome: { result: CallToolResult } | { error: unknown }): void {
    this.#outcome = outcome;
    this.#wake?.();
  }

  /** The call's result, once its server answered (or it was cancelled); rejects with its protocol error. */
  async settled(): Promise<CallToolResult> {
    if (!this.#settled) throw new Error('a parked call was awaited before it started');
    await this.#settled;
    return this.#finalResult() as CallToolResult;
  }

  /** The result, once there is one; throws what the call threw. */
  #finalResult(): CallToolResult | undefined {
    const outcome = this.#outcome;
    if (!outcome) return undefined;
    if ('error' in outcome) throw outcome.error;
    return outcome.result;
  }

  /** A round begins with `request`: its progress token and cancellation now apply to the call. */
  bind(request: Extra): void {
    this.unbind();
    this.channel.request = request;
    // A round whose request's signal is the call's own cancels it without a link.
    if (request.signal === this.signal) return;
    const cancel = () => this.#abort.abort(request.signal.reason);
    if (request.signal.aborted) cancel();
    request.signal.addEventListener('abort', cancel, { once: true });
    this.#unlink = () => request.signal.removeEventListener('abort', cancel);
  }

  /** The round's request is answered: its end no longer cancels the call. */
  unbind(): void {
    this.#unlink?.();
    this.#unlink = undefined;
  }

  /**
   * Waits until the call ends or its server asked something not yet put to the client. Questions
   * asked in one breath (a 2026-07-28 server's several input requests) travel in one round.
   */
  async next(): Promise<RoundEnd> {
    for (;;) {
      let result = this.#finalResult();
      if (result) return { result };
      if (this.#questions.some((question) => !question.asked)) {
        await new Promise((resolve) => setImmediate(resolve));
        result = this.#finalResult();
        if (result) return { result };
        const fresh = this.#questions.filter((question) => !question.asked);
        for (const question of fresh) question.asked = true;
        // Questions the server withdrew meanwhile leave nothing to ask.
        if (fresh.length > 0)
          return { questions: fresh.map((question) => question.request), keys: fresh.map(({ key }) => key) };
        continue;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }

  /** The questions of the round could not be put to the client: their server is told why. */
  refuse(keys: readonly string[], error: Error): void {
    for (const question of this.#take(keys)) question.fail(error);
  }

  /**
   * The client's retry: each answer goes to the question it answers. A question it left
   * unanswered is put again in the next round.
   */
  answer(responses: Record<string, unknown> | undefined): void {
    for (const question of this.#questions.filter((question) => question.asked)) {
      const response = responses?.[question.key];
      if (response === undefined || response === null || typeof response !== 'object') question.asked = false;
      else
        for (const answered of this.#take([question.key]))
          answered.answer(response as Record<string, unknown>);
    }
  }

  /** Cancels the call to the server; what it asked is answered with `reason`. */
  cancel(reason: string): void {
    const error = new Error(reason);
    this.#abort.abort(error);
    for (const question of this.#take(this.#questions.map(({ key }) => key))) question.fail(error);
  }

  #take(keys: readonly string[]): Question[] {
    const taken = this.#questions.filter((question) => keys.includes(question.key));
    for (const question of taken) this.#questions.splice(this.#questions.indexOf(question), 1);
    return taken;
  }

  #ask(request: InputRequest, signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const key = `input-${++this.#asked}`;
      const question: Question = { key, request, asked: false, answer: resolve, fail: reject };
      // The server (or the call) gave the question up: it is not put to the client any more.
      const withdrawn = () => {
        for (const gone of this.#take([key])) gone.fail(signal?.reason);
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', withdrawn, { once: true });
      this.#questions.push({
        ...question,
        answer: (response) => {
          signal?.removeEventListener('abort', withdrawn);
          resolve(response);
        },
      });
      this.#wake?.();
    });
  }
}
