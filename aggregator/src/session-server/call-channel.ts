import type { Notification, ServerContext } from '@modelcontextprotocol/server';
import type { ActiveCall } from './session.js';

/** The request a handler answers: its signal, `_meta`, and what it may send as part of it. */
export type Extra = ServerContext['mcpReq'];

/**
 * How a forwarded call reaches its client: the notifications it sends (progress, log messages),
 * in the order they came, and the call through which its server's questions are asked. A 2025
 * call has one request for its whole life; a 2026-07-28 call that a server's question parks
 * goes on in the client's retry, so `request` is the round's request and moves to each retry.
 */
export class CallChannel {
  #sent: Promise<unknown> = Promise.resolve();
  #any = false;

  constructor(
    public request: Extra,
    /** What the session registers as its call in flight: a question to the client goes through it. */
    readonly active: ActiveCall = request,
  ) {}

  send(notification: Notification): void {
    const { request } = this;
    this.#any = true;
    this.#sent = this.#sent.then(() => request.notify(notification)).catch(() => undefined);
  }

  /**
   * Settles when what was sent went out. A result waits for it, because a client drops progress
   * that arrives after the result; and the SDK client handles a notification a microtask after
   * it arrives but a response at once, so also one turn of the event loop after the last one.
   */
  async flushed(): Promise<void> {
    await this.#sent;
    if (this.#any) await new Promise((resolve) => setImmediate(resolve));
  }

  /** Passes downstream progress on under the progress token of the round's request, when it has one. */
  progress(progress: { progress: number; total?: number; message?: string }): void {
    const token = this.request._meta?.progressToken;
    if (token !== undefined)
      this.send({ method: 'notifications/progress', params: { ...progress, progressToken: token } });
  }
}
