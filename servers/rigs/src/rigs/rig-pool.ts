import { randomBytes } from 'node:crypto';
import { ToolError } from '@toolmesh/core';
import type { Surface } from './probes.js';
import { endRigProcesses } from './process-group.js';
import type { RunFolders } from './run-folders.js';

/** What runs inside a rig: a browser, a desktop. It knows how to stop itself politely. */
export interface Machine {
  /** What drives it, e.g. "playwright-core over a CDP pipe". */
  readonly controller: string;
  /** Facts a user should know, such as a sandbox that could not start. */
  readonly notes: readonly string[];
  readonly displaySize?: { width: number; height: number };
  /** Process groups it started, ended by the pool after `close` (TERM, then KILL). */
  processGroups(): number[];
  close(): Promise<void>;
}

/** Which rig a call reuses: one per workspace, surface, engine and conversation. */
export interface RigKey {
  workspace: string;
  surface: Surface;
  engine: string;
  conversation: string;
}

export interface RigView {
  id: string;
  surface: Surface;
  engine: string;
  status: 'starting' | 'ready' | 'busy' | 'closing';
  displaySize?: { width: number; height: number };
  controller?: string;
  notes: string[];
  startedAt: string;
  lastUsedAt: string;
  idleSeconds: number;
}

interface Rig {
  id: string;
  key: RigKey;
  folder: string;
  started: Promise<Machine>;
  machine?: Machine;
  status: RigView['status'];
  startedAt: number;
  lastUsedAt: number;
  busy: number;
  /** Calls on one rig run one after another. */
  queue: Promise<unknown>;
  idleTimer?: NodeJS.Timeout;
}

export interface RigPoolOptions {
  folders: RunFolders;
  /** Rigs per workspace; starting one more closes the least recently used (default 3). */
  maxPerWorkspace?: number;
  /** Idle time after which a rig is closed (default 10 minutes). */
  idleMs?: number;
  onClosed?: (id: string, why: string) => void;
}

const sameKey = (a: RigKey, b: RigKey) =>
  a.workspace === b.workspace &&
  a.surface === b.surface &&
  a.engine === b.engine &&
  a.conversation === b.conversation;

/** The rigs of a server: started on demand, reused per key, capped per workspace, closed when idle. */
export class RigPool {
  private readonly rigs = new Map<string, Rig>();
  private readonly maxPerWorkspace: number;
  private readonly idleMs: number;

  constructor(private readonly options: RigPoolOptions) {
    this.maxPerWorkspace = options.maxPerWorkspace ?? 3;
    this.idleMs = options.idleMs ?? 10 * 60_000;
  }

  /**
   * Runs `action` on the rig `rigId` names (in the key's workspace), else on the key's rig,
   * starting one with `start` when there is none.
   */
  async use<M extends Machine, T>(
    key: RigKey,
    rigId: string | undefined,
    start: (folder: string) => Promise<M>,
    action: (machine: M, rigId: string) => Promise<T>,
  ): Promise<T> {
    const rig =
      rigId !== undefined ? this.named(key, rigId) : (this.find(key) ?? (await this.open(key, start)));
    rig.busy++;
    this.touch(rig);
    const run = rig.queue.then(async () => {
      const machine = (await rig.started) as M;
      if (rig.status === 'closing')
        throw new ToolError(`rig ${rig.id} was closed: call again to start a new one.`);
      rig.status = 'busy';
      return action(machine, rig.id);
    });
    rig.queue = run.catch(() => undefined);
    try {
      return await run;
    } finally {
      rig.busy--;
      if (rig.status === 'busy' && rig.busy === 0) rig.status = 'ready';
      this.touch(rig);
    }
  }

  list(workspace: string): RigView[] {
    const now = Date.now();
    return [...this.rigs.values()]
      .filter((rig) => rig.key.workspace === workspace)
      .map((rig) => ({
        id: rig.id,
        surface: rig.key.surface,
        engine: rig.key.engine,
        status: rig.status,
        ...(rig.machine?.displaySize && { displaySize: rig.machine.displaySize }),
        ...(rig.machine && { controller: rig.machine.controller }),
        notes: [...(rig.machine?.notes ?? [])],
        startedAt: new Date(rig.startedAt).toISOString(),
        lastUsedAt: new Date(rig.lastUsedAt).toISOString(),
        idleSeconds: rig.busy > 0 ? 0 : Math.round((now - rig.lastUsedAt) / 1000),
      }));
  }

  /** Closes a rig of the workspace; throws a ToolError naming the ones there are when it is unknown. */
  async close(workspace: string, rigId: string): Promise<void> {
    const rig = this.rigs.get(rigId);
    if (!rig || rig.key.workspace !== workspace) throw this.unknown(workspace, rigId);
    await this.end(rig, 'closed by rig_close');
  }

  async closeAll(why = 'server stopping'): Promise<void> {
    await Promise.all([...this.rigs.values()].map((rig) => this.end(rig, why)));
  }

  private find(key: RigKey): Rig | undefined {
    return [...this.rigs.values()].find((rig) => rig.status !== 'closing' && sameKey(rig.key, key));
  }

  private named(key: RigKey, rigId: string): Rig {
    const rig = this.rigs.get(rigId);
    if (!rig || rig.key.workspace !== key.workspace || rig.status === 'closing')
      throw this.unknown(key.workspace, rigId);
    if (rig.key.surface !== key.surface || rig.key.engine !== key.engine) {
      throw new ToolError(
        `rig ${rigId} is a ${rig.key.surface} rig (${rig.key.engine}), not a ${key.surface} one (${key.engine}): leave rig_id out to use or start the right kind.`,
      );
    }
    return rig;
  }

  private unknown(workspace: string, rigId: string): ToolError {
    const ids = this.list(workspace).map((rig) => rig.id);
    return new ToolError(
      `no rig ${JSON.stringify(rigId)} in workspace "${workspace}"${ids.length > 0 ? `: it has ${ids.join(', ')}` : ': it has none'}. rig_list shows them; leave rig_id out to start one.`,
    );
  }

  private async open<M extends Machine>(key: RigKey, start: (folder: string) => Promise<M>): Promise<Rig> {
    const inWorkspace = [...this.rigs.values()].filter(
      (rig) => rig.key.workspace === key.workspace && rig.status !== 'closing',
    );
    const idle = inWorkspace.filter((rig) => rig.busy === 0);
    const evicted =
      inWorkspace.length >= this.maxPerWorkspace
        ? (idle.length > 0 ? idle : inWorkspace).sort((a, b) => a.lastUsedAt - b.lastUsedAt)[0]
        : undefined;
    const id = `rig-${randomBytes(4).toString('hex')}`;
    const folder = this.options.folders.create(id);
    const now = Date.now();
    // Registered before anything is awaited, so a second call with the same key finds this rig.
    const rig: Rig = {
      id,
      key,
      folder,
      status: 'starting',
      startedAt: now,
      lastUsedAt: now,
      busy: 0,
      queue: Promise.resolve(),
      started: (async () => {
        if (evicted) {
          await this.end(
            evicted,
            `least recently used: workspace "${key.workspace}" is at its cap of ${this.maxPerWorkspace} rigs`,
          );
        }
        return start(folder);
      })(),
    };
    this.rigs.set(id, rig);
    try {
      rig.machine = await rig.started;
    } catch (error) {
      await this.end(rig, 'failed to start');
      throw error;
    }
    if (rig.status === 'starting') rig.status = 'ready';
    return rig;
  }

  private touch(rig: Rig): void {
    rig.lastUsedAt = Date.now();
    clearTimeout(rig.idleTimer);
    rig.idleTimer = setTimeout(() => {
      if (rig.busy === 0) void this.end(rig, `idle for ${Math.round(this.idleMs / 1000)} s`);
    }, this.idleMs);
    rig.idleTimer.unref();
  }

  private async end(rig: Rig, why: string): Promise<void> {
    if (rig.status === 'closing' && !this.rigs.has(rig.id)) return;
    rig.status = 'closing';
    clearTimeout(rig.idleTimer);
    this.rigs.delete(rig.id);
    const machine = await rig.started.catch(() => undefined);
    const groups = machine?.processGroups() ?? [];
    await Promise.race([
      machine?.close().catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, 3000)),
    ]);
    await endRigProcesses(rig.folder, groups);
    this.options.folders.remove(rig.folder);
    this.options.onClosed?.(rig.id, why);
  }
}
