import { randomUUID } from 'node:crypto';

/**
 * Which of toolmesh's calls to a server a request of that server belongs to travels with the
 * request as a tag in its `_meta`: set by toolmesh only where the wire ties the request to a
 * call, and random per call, so a server cannot send a question to a call by naming it.
 */
export const CALL_TAG_META = 'toolmesh/call';

/** The header that tells toolmesh's own fetch which call a POST carries; it never leaves the process. */
export const CALL_TAG_HEADER = 'x-toolmesh-call';

export const newCallTag = (): string => randomUUID();

type Params = Record<string, unknown> | undefined;

/** `params` with `tag` in its `_meta`. */
export function taggedParams(params: Params, tag: string): Record<string, unknown> {
  const meta = params?._meta as Record<string, unknown> | undefined;
  return { ...params, _meta: { ...meta, [CALL_TAG_META]: tag } };
}

/** The call tag in a request's `_meta`, as the request came. */
export function callTagIn(meta: Record<string, unknown> | undefined): string | undefined {
  const tag = meta?.[CALL_TAG_META];
  return typeof tag === 'string' ? tag : undefined;
}

/** A request's params as the server sent them, without the call tag: the client is not shown it. */
export function untagged(params: Params): Params {
  const meta = params?._meta as Record<string, unknown> | undefined;
  if (!meta || !(CALL_TAG_META in meta)) return params;
  const { [CALL_TAG_META]: _tag, ...rest } = meta;
  const { _meta, ...others } = params as Record<string, unknown>;
  return Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others;
}

/** The call tag a request's options name, when toolmesh gave it one. */
export const callTagOf = (options: { headers?: Record<string, string> } | undefined): string | undefined =>
  options?.headers?.[CALL_TAG_HEADER];
