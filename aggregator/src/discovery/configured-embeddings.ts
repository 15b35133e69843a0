import type { HttpEmbedderOptions, Logger } from '@toolmesh/core';
import type { IndexedTool } from './indexed-tool.js';
import { ToolEmbeddings } from './tool-embeddings.js';

/**
 * The embeddings stage as the config has it now: none without `discovery.embeddings`, and a
 * fresh one (everything embedded again) when its endpoint or model changes.
 */
export class ConfiguredEmbeddings {
  readonly #settings: () => HttpEmbedderOptions | undefined;
  readonly #log: Logger;
  #key: string | undefined;
  #stage: ToolEmbeddings | undefined;
  #synced: Promise<void> = Promise.resolve();

  constructor(settings: () => HttpEmbedderOptions | undefined, log: Logger) {
    this.#settings = settings;
    this.#log = log;
  }

  get stage(): ToolEmbeddings | undefined {
    return this.#stage;
  }

  /** Follows the registry's tools after a change (`changed`) or a config that may have changed. */
  follow(tools: () => IndexedTool[], changed: boolean): void {
    const settings = this.#settings();
    const key = settings && JSON.stringify(settings);
    if (key !== this.#key) {
      this.#key = key;
      this.#stage = settings && ToolEmbeddings.fromSettings(settings, this.#log);
      changed = true;
    }
    if (this.#stage && changed) this.#synced = this.#stage.sync(tools());
  }

  /** Resolves when the tools known at the last change are embedded (or failed to be). */
  synced(): Promise<void> {
    return this.#synced;
  }
}
