import {
  deserializeMessage,
  type JSONRPCMessage,
  SERVER_INFO_META_KEY,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
} from '@modelcontextprotocol/client';
import { isRecord } from '../config/is-record.js';

const onlyKeys = (value: Record<string, unknown>, allowed: readonly string[]) => {
  for (const key in value) if (!allowed.includes(key)) return false;
  return true;
};

/** `_meta` keys a result's schema gives a shape of its own. */
const SHAPED_META_KEY = /^(progressToken$|io\.modelcontextprotocol\/)/;

const TEXT_FIELDS_OF_IMPLEMENTATION = ['title', 'websiteUrl', 'description'] as const;

/**
 * Whether the identity a 2026-07-28 server stamps on its results is one the schema takes as it
 * is: a name and a version, and no field the schema would drop or a list of icons to check.
 */
function isPlainImplementation(value: unknown): boolean {
  if (!isRecord(value) || typeof value.name !== 'string' || typeof value.version !== 'string') return false;
  if (!onlyKeys(value, ['name', 'version', ...TEXT_FIELDS_OF_IMPLEMENTATION])) return false;
  return TEXT_FIELDS_OF_IMPLEMENTATION.every(
    (field) => value[field] === undefined || typeof value[field] === 'string',
  );
}

/**
 * Whether a server's message is a response of the plainest form: a result object whose `_meta`
 * (if any) holds no key the schema shapes but a plain server identity, or an error with a
 * whole-number code and a message.
 * Every such value passes the SDK's JSON-RPC message schema, so it needs no pass through it.
 */
export function isPlainResponse(value: unknown): value is JSONRPCMessage {
  if (!isRecord(value) || value.jsonrpc !== '2.0') return false;
  if (!(typeof value.id === 'string' || Number.isSafeInteger(value.id))) return false;
  const { result, error } = value;
  if (isRecord(result)) {
    if (!onlyKeys(value, ['jsonrpc', 'id', 'result'])) return false;
    const meta = result._meta;
    if (meta === undefined) return true;
    if (!isRecord(meta)) return false;
    for (const key in meta) {
      if (key === SERVER_INFO_META_KEY) {
        if (!isPlainImplementation(meta[key])) return false;
      } else if (SHAPED_META_KEY.test(key)) return false;
    }
    return true;
  }
  return (
    isRecord(error) &&
    onlyKeys(value, ['jsonrpc', 'id', 'error']) &&
    Number.isSafeInteger(error.code) &&
    typeof error.message === 'string' &&
    onlyKeys(error, ['code', 'message', 'data'])
  );
}

/**
 * A stdio server's output, one message a line, as the SDK's ReadBuffer reads it (a line that is
 * not JSON is skipped, one that is not a message throws), except that a plain response, the
 * answer to every call, is taken as parsed instead of passing the message schema too.
 */
export class ServerLines {
  #buffer: Buffer | undefined;

  append(chunk: Buffer): void {
    if ((this.#buffer?.length ?? 0) + chunk.length > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
      this.clear();
      throw new Error(`the server wrote a line longer than ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes`);
    }
    this.#buffer = this.#buffer ? Buffer.concat([this.#buffer, chunk]) : chunk;
  }

  /** The next whole message, or null until one has arrived. */
  readMessage(): JSONRPCMessage | null {
    while (this.#buffer) {
      const end = this.#buffer.indexOf(0x0a);
      if (end === -1) return null;
      const line = this.#buffer.toString('utf8', 0, end).replace(/\r$/, '');
      this.#buffer = end + 1 < this.#buffer.length ? this.#buffer.subarray(end + 1) : undefined;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      return isPlainResponse(value) ? value : deserializeMessage(line);
    }
    return null;
  }

  clear(): void {
    this.#buffer = undefined;
  }
}
