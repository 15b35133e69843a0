import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openState } from '../src/state/open-state.js';
import type { AggregatorState } from '../src/state/state.js';
import {
  type RunStateSettings,
  removeRunState,
  runStateSettings,
  STATE_KINDS,
  type StateKind,
} from '../src/testing.js';

export { deleteKeys, dropSchema, POSTGRES_URL, REDIS_URL } from '../src/testing.js';

/** One store, as several processes would share it: each `open()` is another handle with its own connections. */
export interface StateBackend {
  open(): Promise<AggregatorState>;
  /** The settings `openState` takes, for a child process to open the same store. */
  readonly settings: RunStateSettings;
  /** Closes every handle and removes everything this store wrote (file, keys, schema). */
  dispose(): Promise<void>;
}

export type BackendName = StateKind;

export const BACKENDS = STATE_KINDS;

/** A store of the kind named, empty, that no other test run sees. */
export function newBackend(name: BackendName, now: () => number = Date.now): StateBackend {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-state-'));
  const settings = runStateSettings(name, folder);
  const opened: AggregatorState[] = [];
  return {
    settings,
    async open() {
      const state = await openState({ ...settings, now });
      opened.push(state);
      return state;
    },
    async dispose() {
      await Promise.all(opened.splice(0).map((state) => state.close()));
      await removeRunState(settings);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
