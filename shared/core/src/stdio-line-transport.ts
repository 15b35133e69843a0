import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { type LineErrorAnswer, readJsonRpcLine } from './jsonrpc-line.js';

/** The largest message a server takes, over stdio and as an HTTP body, so both transports take the same ones. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * Takes a message before the SDK's stdio entry reads it, for the server that entry connected to
 * serve itself (see answerOnConnection); true when it took it.
 */
export type LineShortcut = (message: JSONRPCMessage) => boolean;

/** The line transport each message was read from, for as long as that transport has no shortcut. */
const readFrom = new WeakMap<object, StdioLineTransport>();

/**
 * The line transport `message` was read from, when it has no shortcut yet: how a server the
 * SDK's stdio entry connected finds the wire under the entry's channel, to set one.
 */
export function lineTransportOf(message: object): StdioLineTransport | undefined {
  return readFrom.get(message);
}

/**
 * The server side of MCP over stdio, one message per line. Unlike the SDK's transport, no line
 * ends the session: a line too long to hold is dropped as it streams in and answered with an
 * error, and a line that is not a message gets the error `readJsonRpcLine` gives it.
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Serves the messages it takes in place of `onmessage`: the SDK's stdio entry runs its
   * JSON-RPC schemas over every message in and out, which a plain tool call does not need.
   */
  shortcut?: LineShortcut;

  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while the rest of an over-long line streams past. */
  private dropping = false;
  private started = false;
  private readonly maxMessageBytes: number;
  /** The ids of requests delivered and not yet answered, and who waits until there are none. */
  private readonly unanswered = new Set<string | number>();
  private allAnswered: (() => void)[] = [];

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    options: { maxMessageBytes?: number } = {},
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('StdioLineTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
  }

  private readonly onStreamError = (error: Error) => this.onerror?.(error);

  private readonly onData = (chunk: Buffer) => {
    let from = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, from)) {
      this.take(chunk.subarray(from, end));
      this.endLine();
      from = end + 1;
    }
    if (from < chunk.length) this.take(chunk.subarray(from));
  };

  private take(piece: Buffer): void {
    if (this.dropping || piece.length === 0) return;
    if (this.pendingBytes + piece.length > this.maxMessageBytes) {
      this.dropping = true;
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    this.pending.push(piece);
    this.pendingBytes += piece.length;
  }

  private endLine(): void {
    if (this.dropping) {
      this.dropping = false;
      void this.write({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: ProtocolErrorCode.InvalidRequest,
          message: `Invalid Request: a line longer than ${this.maxMessageBytes} bytes was dropped unread. Send less per message, e.g. split the edit.`,
        },
      });
      return;
    }
    const line = Buffer.concat(this.pending, this.pendingBytes).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.pendingBytes = 0;
    const read = readJsonRpcLine(line);
    if ('answer' in read) void this.write(read.answer);
    else if ('message' in read) this.deliver(read.message);
  }

  /** A handler that throws must not take the stream's 'data' event, and so the process, down with it. */
  private deliver(message: JSONRPCMessage): void {
    if ('method' in message) {
      if ('id' in message) this.unanswered.add(message.id);
      // A request its client cancelled gets no answer.
      else if (message.method === 'notifications/cancelled') this.answeredOne(message.params?.requestId);
    }
    if (this.shortcut) {
      if (this.tookShortcut(this.shortcut, message)) return;
    } else readFrom.set(message, this);
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  /** Whether `shortcut` took the message; one that throws leaves it to `onmessage`, which answers it. */
  private tookShortcut(shortcut: LineShortcut, message: JSONRPCMessage): boolean {
    try {
      return shortcut(message);
    } catch (error) {
      this.onerror?.(error as Error);
      return false;
    }
  }

  private write(message: JSONRPCMessage | LineErrorAnswer): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (!('method' in message) && 'id' in message) this.answeredOne(message.id);
    return this.write(message);
  }

  private answeredOne(id: unknown): void {
    if (!this.unanswered.delete(id as string | number) || this.unanswered.size > 0) return;
    for (const settle of this.allAnswered.splice(0)) settle();
  }

  /**
   * Settles once every request read so far has its answer on its way (or was cancelled): a
   * client that sends its last requests and closes stdin, as a pipe does, still gets them.
   */
  answered(): Promise<void> {
    if (this.unanswered.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.allAnswered.push(resolve));
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pending = [];
    this.pendingBytes = 0;
    this.onclose?.();
  }
}
