import type { Logger } from '@toolmesh/core';
import type { AssociationChange, AssociationStore } from '../state/association-store.js';
import { LearnedAssociations } from './learned-associations.js';
import { SearchTrails } from './search-trail.js';

export interface LearningSettings {
  learnFromUse: boolean;
  learnedHalfLifeDays: number;
  maxLearnedAssociations: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Learning from use: a session's searches and the tool it then called tie the searches' terms
 * to that tool, in memory for searching and in `store` across runs. Off, it neither learns nor
 * lifts, and keeps what it learnt for when it is on again.
 */
export class DiscoveryLearning {
  readonly #associations: LearnedAssociations;
  readonly #trails = new SearchTrails();
  readonly #store: AssociationStore | undefined;
  readonly #settings: () => LearningSettings;
  readonly #log: Logger;
  readonly #now: () => number;
  /** Writes to the store in order, so a clear is never overtaken by an earlier write. */
  #writes: Promise<unknown> = Promise.resolve();

  constructor(options: {
    settings: () => LearningSettings;
    store?: AssociationStore;
    log: Logger;
    now?: () => number;
  }) {
    this.#settings = options.settings;
    this.#store = options.store;
    this.#log = options.log;
    this.#now = options.now ?? Date.now;
    const settings = options.settings();
    this.#associations = new LearnedAssociations({
      halfLifeMs: settings.learnedHalfLifeDays * DAY_MS,
      maxAssociations: settings.maxLearnedAssociations,
    });
  }

  /** What the index lifts by: the links learnt, while learning is on. */
  get associations(): LearnedAssociations | undefined {
    return this.#settings().learnFromUse ? this.#associations : undefined;
  }

  /** Reads what earlier runs learnt, and follows what other replicas sharing the store learn. */
  async load(): Promise<void> {
    if (!this.#store) return;
    this.#store.watch?.((change) => this.#apply(change));
    try {
      this.#associations.load(await this.#store.all());
    } catch (error) {
      this.#log.warning(`could not read what discovery learnt from use: ${(error as Error).message}`);
    }
  }

  searched(session: string, terms: readonly string[], returned: Iterable<string>): void {
    if (this.#settings().learnFromUse) this.#trails.searched(session, terms, returned);
  }

  /** A session called `tool`: its searches since its last call that led to it teach their terms. */
  called(session: string, tool: string): void {
    if (!this.#settings().learnFromUse) return;
    const terms = this.#trails.called(session, tool);
    if (terms.length === 0) return;
    const now = this.#now();
    const learnt = this.#associations.reinforce(terms, tool, now);
    const dropped = this.#associations.evicted(now);
    this.#write(async (store) => {
      await store.put(learnt);
      if (dropped.length > 0) await store.remove(dropped);
    });
  }

  forget(session: string): void {
    this.#trails.forget(session);
  }

  /** Forgets everything learnt, here and in the store. */
  async clear(): Promise<void> {
    this.#associations.clear();
    this.#write((store) => store.clear());
    await this.#writes;
  }

  async close(): Promise<void> {
    await this.#writes;
    await this.#store?.close();
  }

  #apply(change: AssociationChange): void {
    if ('put' in change) this.#associations.load(change.put);
    else if ('removed' in change) this.#associations.forget(change.removed);
    else this.#associations.clear();
  }

  #write(step: (store: AssociationStore) => Promise<void>): void {
    const store = this.#store;
    if (!store) return;
    this.#writes = this.#writes
      .then(() => step(store))
      .catch((error: Error) => this.#log.warning(`could not keep what discovery learnt: ${error.message}`));
  }
}
