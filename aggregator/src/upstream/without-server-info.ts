import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';

/**
 * A downstream server's result without the identity a 2026-07-28 server stamps on it: that
 * names the server at the other end of this hop, while the client is answered by toolmesh,
 * which stamps its own.
 */
export function withoutServerInfo(result: CallToolResult): CallToolResult {
  const meta = result._meta;
  if (!meta || !(SERVER_INFO_META_KEY in meta)) return result;
  const { [SERVER_INFO_META_KEY]: _downstream, ...rest } = meta;
  const { _meta, ...others } = result;
  return Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others;
}
