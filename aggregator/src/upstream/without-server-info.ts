import { SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import { isRecord } from '../config/is-record.js';

/**
 * A downstream server's answer without the identity a 2026-07-28 server stamps on it: that
 * names the server at the other end of this hop, while the client is answered by toolmesh,
 * which stamps its own.
 */
export function withoutServerInfo<T extends Record<string, unknown>>(answer: T): T {
  const meta = answer._meta;
  if (!isRecord(meta) || !(SERVER_INFO_META_KEY in meta)) return answer;
  const { [SERVER_INFO_META_KEY]: _downstream, ...rest } = meta;
  const { _meta, ...others } = answer;
  return (Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others) as T;
}
