import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { dataDirectory } from '@toolmesh/core';
import { SqliteState } from './sqlite-state.js';
import type { AggregatorState } from './state.js';

/**
 * The state toolmesh keeps: a SQLite file, by default in the data directory, in a folder only
 * the user can read (it holds tool arguments). A shared store for several processes plugs in here.
 */
export function openState(options: { dataDir?: string; file?: string } = {}): AggregatorState {
  const file = options.file ?? path.join(options.dataDir ?? dataDirectory(), 'aggregator', 'state.sqlite');
  if (!options.file) mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  return SqliteState.open(file);
}
