import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import { requestParamsProblem } from './request-params.js';

/** A tools/call request in the plainest form, which needs no schema to be read (see isPlainToolCall). */
export interface PlainToolCall {
  jsonrpc: '2.0';
  id: string | number;
  method: 'tools/call';
  params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const PLAIN_REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PLAIN_TOOL_CALL_PARAMS = new Set(['name', 'arguments', '_meta']);
/** `_meta` keys the protocol gives a shape of its own (the 2026-07-28 envelope, related tasks). */
const RESERVED_META_PREFIX = 'io.modelcontextprotocol/';

const onlyKeys = (value: Record<string, unknown>, allowed: ReadonlySet<string>) => {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
};

/**
 * Whether `value` is a tools/call request with nothing but a name, plain arguments and `_meta`
 * holding at most a progress token besides keys of no protocol shape: the call every client
 * makes. Every such value passes the SDK's message and params schemas, so it is taken after
 * these few checks instead of a pass through each schema; anything else is read by them.
 */
export function isPlainToolCall(value: unknown): value is PlainToolCall {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0' || value.method !== 'tools/call') return false;
  const { id, params } = value;
  if (!(typeof id === 'string' || Number.isSafeInteger(id)) || !onlyKeys(value, PLAIN_REQUEST_KEYS))
    return false;
  if (!isPlainObject(params) || typeof params.name !== 'string') return false;
  if (!onlyKeys(params, PLAIN_TOOL_CALL_PARAMS)) return false;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isPlainObject(meta)) return false;
  for (const key in meta) if (key.startsWith(RESERVED_META_PREFIX)) return false;
  const token = meta.progressToken;
  return token === undefined || typeof token === 'string' || Number.isSafeInteger(token);
}

/** The revision whose plain calls are answered past the SDK; a request of any other goes to it. */
export const MODERN_REVISION = '2026-07-28';
/** The `_meta` envelope keys a plain 2026-07-28 call may carry; any other reserved key sends it to the SDK. */
const ENVELOPE_KEYS = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
]);

/** A plain 2026-07-28 tools/call: the request as its handler gets it, and its envelope. */
export interface ModernToolCall {
  request: PlainToolCall;
  envelope: Record<string, unknown>;
}

/** Envelopes (capabilities, client) the SDK was found to accept, as JSON; forgotten when too many. */
const acceptedEnvelopes = new Set<string>();
const ENVELOPES_KEPT = 256;

/**
 * The message judged last, and what it was found to be (null: not a plain call). A line read
 * over stdio is judged where it is read and again, before the next line is read, where its call
 * is answered; the message is the same object, which nobody changes on its way, so it is judged
 * once. One entry, not a WeakMap of every message: an entry per call in a WeakMap is an
 * ephemeron each young-generation collection has to visit, which cost more than judging again.
 */
let lastJudged: { body: object; call: ModernToolCall | null } | undefined;

/**
 * The call `body` is when it is a plain 2026-07-28 tools/call the SDK would serve as such: a
 * plain call (see isPlainToolCall) once the envelope of the served revision is lifted out of its
 * `_meta`, with an envelope the SDK accepts. Anything else (a malformed or foreign envelope, a
 * retry with answers) is undefined, for the SDK to serve or refuse in its words.
 */
export function plainModernCallOf(body: unknown): ModernToolCall | undefined {
  if (!isPlainObject(body) || body.method !== 'tools/call') return undefined;
  if (lastJudged?.body === body) return lastJudged.call ?? undefined;
  const call = modernCallOf(body);
  lastJudged = { body, call: call ?? null };
  return call;
}

function modernCallOf(body: Record<string, unknown>): ModernToolCall | undefined {
  const params = body.params;
  if (!isPlainObject(params)) return undefined;
  const meta = params._meta;
  if (!isPlainObject(meta) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN_REVISION) return undefined;
  const envelope: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  let restKeys = 0;
  for (const key in meta) {
    if (!key.startsWith(RESERVED_META_PREFIX)) {
      rest[key] = meta[key];
      restKeys++;
    } else if (ENVELOPE_KEYS.has(key)) envelope[key] = meta[key];
    else return undefined;
  }
  // The handler sees the call with its envelope lifted out of `_meta`, as the SDK hands it on.
  const request = { ...body, params: { ...params } } as PlainToolCall;
  if (restKeys > 0) request.params._meta = rest;
  else delete request.params._meta;
  if (!isPlainToolCall(request) || !(CLIENT_CAPABILITIES_META_KEY in envelope)) return undefined;
  if (!accepted(body, envelope)) return undefined;
  return { request, envelope };
}

/** Whether the SDK takes this envelope; asked of its classification once per envelope seen. */
function accepted(body: Record<string, unknown>, envelope: Record<string, unknown>): boolean {
  const key = JSON.stringify([envelope[CLIENT_CAPABILITIES_META_KEY], envelope[CLIENT_INFO_META_KEY]]);
  if (acceptedEnvelopes.has(key)) return true;
  const outcome = classifyInboundRequest({ httpMethod: 'POST', body });
  if (outcome.kind !== 'modern' || requestParamsProblem(body) !== undefined) return false;
  if (acceptedEnvelopes.size >= ENVELOPES_KEPT) acceptedEnvelopes.clear();
  acceptedEnvelopes.add(key);
  return true;
}
