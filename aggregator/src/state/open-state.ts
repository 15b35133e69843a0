import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { dataDirectory } from '@toolmesh/core';
import { SqliteState } from './sqlite-state.js';
import type { AggregatorState } from './state.js';

/** The state toolmesh keeps by default: one SQLite file in the data directory, private to the user. */
export function openState(options: { dataDir?: string; file?: string } = {}): AggregatorState {
  const folder = path.join(options.dataDir ?? dataDirectory(), 'aggregator');
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  return SqliteState.open(options.file ?? path.join(folder, 'state.sqlite'));
}
