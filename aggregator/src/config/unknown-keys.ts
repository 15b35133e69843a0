import { closestNames } from '../registry/closest-names.js';
import { isRecord } from './is-record.js';

/**
 * Top-level keys of the files a toolmesh config is often copied from or shared with: VS Code's
 * mcp.json (`inputs`) and Claude Desktop's config (`globalShortcut`, `preferences`). They mean
 * nothing to toolmesh, and are no mistake.
 */
const OTHER_CLIENTS_KEYS = ['inputs', 'globalShortcut', 'preferences'];

/**
 * A warning for each top-level key toolmesh does not know, with the known key it is closest to.
 * Unknown keys stay allowed: a config shared with another client carries that client's keys.
 */
export function unknownKeyWarnings(raw: unknown, knownKeys: readonly string[]): string[] {
  if (!isRecord(raw)) return [];
  return Object.keys(raw)
    .filter((key) => !knownKeys.includes(key) && !OTHER_CLIENTS_KEYS.includes(key))
    .map((key) => {
      const [closest] = closestNames(key, knownKeys, 1);
      return `${key}: not a toolmesh key, so it is ignored${closest ? `; did you mean ${closest}?` : ''}`;
    });
}
