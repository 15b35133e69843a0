import { closestNames } from '../registry/closest-names.js';
import type { SessionBackend } from '../session-server/session-backend.js';

/**
 * "No tool named X", with the names nearest to a typo (or, when none is near, the best search
 * hits for it) and how to search: MCP clients search with search_tool_bm25, a person at the
 * shell with `toolmesh search`.
 */
export function unknownToolMessage(backend: SessionBackend, name: string, searchWith: string): string {
  const names = backend.registry.tools().map((entry) => entry.exposed);
  const close = closestNames(name, names, 3);
  const suggestions = close.length > 0 ? close : backend.index.search(name, 3).map((hit) => hit.name);
  const starting = backend.startingServers();
  return `No tool named ${name}.${suggestions.length > 0 ? ` Did you mean ${suggestions.join(', ')}?` : ''} Find tools with ${searchWith}.${starting.length > 0 ? ` ${stillStarting(starting)}` : ''}`;
}

/** Servers on their first start have no tools listed yet: say so, lest a missing tool look absent for good. */
export function stillStarting(servers: readonly string[]): string {
  return `Still starting: ${servers.join(', ')}; their tools join the registry once ready.`;
}
