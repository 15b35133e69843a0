import { createHash } from 'node:crypto';
import path from 'node:path';
import v8 from 'node:v8';
import ts from 'typescript';
import type { CheckedFile, CheckRequest, PrepareRequest, Share, WorkerMessage } from './checker-protocol.js';
import { importedFiles, mayDeclareGlobals, splitByClosure } from './closure-shares.js';
import { FileChecker } from './file-checker.js';
import { type Partition, planPartitions } from './program-partitions.js';
import { SourceCache, settingsKey } from './source-cache.js';

/** A program of the root, and the part of it this worker builds and checks (all of it, unshared). */
interface SharedPartition {
  whole: Partition;
  checked: Partition;
  /** The other workers' files, last first: those this worker's program holds it may take. */
  others: string[];
  /** The files that may declare globals were added to a share's root files (see buildProgram). */
  globalsAdded?: boolean;
}

/** Files sent to the main thread per message, so it writes and reports progress as results come. */
const FILES_PER_MESSAGE = 20;

/**
 * How far the heap may grow past what a program holds before its checker is replaced by a fresh
 * one over the same parsed files. A checker keeps every type it ever inferred; checking a large
 * project file after file otherwise keeps them all to its end.
 */
export const CHECKER_GROWTH_BYTES = 256 * 1024 ** 2;

/**
 * Programs built ahead of the first check (see prepare) stop once the heap holds this much: the
 * rest are built as their turn comes, after the files only checked programs needed are dropped.
 */
export const PREPARED_HEAP_BYTES = 384 * 1024 ** 2;

export interface CheckerSessionOptions {
  /** See CHECKER_GROWTH_BYTES. */
  checkerGrowthBytes?: number;
  /** A full garbage collection, where the worker can ask for one, so that a replaced checker's memory is measured gone. */
  collectGarbage?: () => void;
}

/**
 * The worker's state for one root: its partitions, the programs kept between requests (without
 * their checkers, which hold most of the memory) and the parsed files they share.
 */
export class CheckerSession {
  private sources = new SourceCache();
  private plan: { key: string; partitions: Partition[]; shares: Map<string, SharedPartition[]> } | undefined;
  private readonly programs = new Map<string, ts.Program>();
  private readonly hosts = new Map<string, ts.CompilerHost>();

  private readonly checkerGrowthBytes: number;

  constructor(
    private readonly root: string,
    private readonly options: CheckerSessionOptions = {},
  ) {
    this.checkerGrowthBytes = options.checkerGrowthBytes ?? CHECKER_GROWTH_BYTES;
  }

  /**
   * Reads the configuration and every file afresh and builds the partitions' programs, in the
   * order they are checked, while the heap stays under PREPARED_HEAP_BYTES.
   */
  prepare(request: PrepareRequest, post: (message: WorkerMessage) => void): void {
    this.forgetAll();
    const partitions = this.partitionsFor(request.files, request.share);
    for (const shared of partitions) {
      if (this.programs.size > 0 && usedHeapBytes() > PREPARED_HEAP_BYTES) break;
      this.programs.set(shared.checked.id, this.buildProgram(shared, undefined));
    }
    post({ type: 'done', partitions: partitions.length, checked: 0 });
  }

  run(request: CheckRequest, post: (message: WorkerMessage) => void): void {
    if (request.refresh) this.forgetAll();
    for (const file of request.changed) this.sources.forget(this.absolute(file));
    for (const file of request.files) {
      const absolute = this.absolute(file);
      const read = this.sources.cachedHash(absolute);
      if (read !== undefined && read !== request.hashes[file]) this.sources.forget(absolute);
    }
    const partitions = this.partitionsFor(request.files, request.share);
    const targets = new Set(request.targets);
    const claims = request.share && request.claims && new Int32Array(request.claims);
    const work = partitions
      .map((shared) => ({
        shared,
        files: shared.checked.owned.filter((file) => targets.has(file)),
        takeable: claims ? shared.others.filter((file) => targets.has(file)) : [],
      }))
      .filter(({ files }) => files.length > 0);
    const targetAt = new Map(request.targets.map((file, at) => [file, at]));
    const claim = (file: string) =>
      !claims || Atomics.compareExchange(claims, targetAt.get(file) as number, 0, 1) === 0;
    const total = work.reduce((sum, { files }) => sum + files.length, 0);
    const storedNames = new Set(request.storedNames);
    let kept: { partition: Partition; program: ts.Program } | undefined;
    let checked = 0;
    let left: string[] | undefined;
    for (const entry of work) {
      const { shared, files, takeable } = entry;
      const partition = shared.checked;
      if (kept) this.keep(kept);
      kept = undefined;
      post({ type: 'progress', phase: 'building', partition: partition.label, done: checked, total });
      if (checked > 0) {
        // The partition before's checker is garbage now: measured from a heap holding it, the
        // budget would end the worker early and this checker would grow unchecked.
        this.options.collectGarbage?.();
        if (request.heapBudgetBytes !== undefined && usedHeapBytes() > request.heapBudgetBytes) {
          left = work.slice(work.indexOf(entry)).flatMap(({ files }) => files);
          break;
        }
      }
      let program = this.buildProgram(shared, this.programs.get(partition.id));
      this.programs.delete(partition.id);
      let checker = new FileChecker(this.root, program.getTypeChecker(), storedNames);
      let checkerFrom = usedHeapBytes();
      let checkedByChecker = 0;
      let batch: CheckedFile[] = [];
      for (const file of [...files, ...takeable]) {
        if (checkedByChecker > 0 && usedHeapBytes() - checkerFrom > this.checkerGrowthBytes) {
          // The same files, reused as they are, under a checker that has inferred nothing yet.
          program = this.createProgram(partition, program);
          checker = new FileChecker(this.root, program.getTypeChecker(), storedNames);
          this.options.collectGarbage?.();
          checkerFrom = usedHeapBytes();
          checkedByChecker = 0;
        }
        const absolute = this.absolute(file);
        const source = program.getSourceFile(absolute);
        // Another worker's file is taken only when this program holds it (with its closure).
        if (!source || !claim(file)) continue;
        const hash = this.sources.text(absolute)?.hash;
        checked++;
        if (!hash) continue;
        batch.push(checker.check(source, file, hash));
        checkedByChecker++;
        if (batch.length >= FILES_PER_MESSAGE) {
          post({ type: 'files', files: batch });
          post({ type: 'progress', phase: 'checking', partition: partition.label, done: checked, total });
          batch = [];
        }
      }
      if (batch.length > 0) post({ type: 'files', files: batch });
      post({ type: 'progress', phase: 'checking', partition: partition.label, done: checked, total });
      // The same files in a program whose checker was never asked for: the checker's types go.
      // The last one is made after the answer is sent, which need not wait for it. A share's
      // program is kept as its whole project's, which later checks use.
      if (request.keepPrograms) kept = { partition: shared.whole, program };
    }
    post({ type: 'done', partitions: work.length, checked, ...(left && { left }) });
    if (kept) this.keep(kept);
  }

  private forgetAll(): void {
    this.sources = new SourceCache();
    this.plan = undefined;
    this.programs.clear();
    this.hosts.clear();
  }

  private keep({ partition, program }: { partition: Partition; program: ts.Program }): void {
    this.programs.set(partition.id, this.createProgram(partition, program));
  }

  private absolute(file: string): string {
    return path.join(this.root, file);
  }

  /** Each program of `files`, and what of it this worker builds and checks for `share`. */
  private partitionsFor(files: readonly string[], share: Share | undefined): SharedPartition[] {
    const partitions = this.wholePartitionsFor(files);
    const plan = this.plan as NonNullable<typeof this.plan>;
    if (!share) return partitions.map((whole) => ({ whole, checked: whole, others: [] }));
    const key = `${share.index}/${share.count}`;
    let shared = plan.shares.get(key);
    if (!shared) {
      shared = partitions.map((whole) => ({ whole, ...this.shareOf(whole, share) }));
      plan.shares.set(key, shared);
    }
    return shared;
  }

  /**
   * The worker's group of a partition's files (splitByClosure over their imports), as a program
   * whose root files are that group and the declaration files: it loads their import closures,
   * and buildProgram adds the files that may declare globals, as the whole program has them.
   */
  private shareOf(whole: Partition, share: Share): { checked: Partition; others: string[] } {
    const host = this.hostOf(whole);
    const cache = ts.createModuleResolutionCache(this.root, (name) => name, whole.options);
    const textOf = (file: string) => this.sources.text(this.absolute(file))?.text ?? '';
    const groups = splitByClosure(
      whole.owned,
      (file) => importedFiles(this.root, file, textOf(file), whole.options, host, cache),
      (file) => textOf(file).length,
      share.count,
    );
    const mine = groups[share.index] ?? [];
    const chosen = new Set(mine);
    const left = new Set(whole.owned.filter((file) => !chosen.has(file)).map((file) => this.absolute(file)));
    return {
      checked: {
        ...whole,
        id: `${whole.id}#${share.index + 1}/${share.count}`,
        rootNames: whole.rootNames.filter((name) => !left.has(name)),
        owned: mine,
      },
      others: groups.flatMap((group, at) => (at === share.index ? [] : group.slice().reverse())),
    };
  }

  /**
   * A share's program gets, as more root files, every file of its project it did not load that
   * may declare globals, so that its files are typed as in the whole program.
   */
  private buildProgram(shared: SharedPartition, oldProgram: ts.Program | undefined): ts.Program {
    const program = this.createProgram(shared.checked, oldProgram);
    if (shared.checked === shared.whole || shared.globalsAdded) return program;
    shared.globalsAdded = true;
    const globals = shared.whole.owned
      .map((file) => this.absolute(file))
      .filter(
        (name) =>
          !program.getSourceFile(name) && mayDeclareGlobals(name, this.sources.text(name)?.text ?? ''),
      );
    if (globals.length === 0) return program;
    shared.checked.rootNames = [...shared.checked.rootNames, ...globals];
    return this.createProgram(shared.checked, program);
  }

  private wholePartitionsFor(files: readonly string[]): Partition[] {
    const key = createHash('sha1').update(files.join('\n')).digest('hex');
    if (this.plan?.key !== key) {
      if (this.plan) {
        // A file no longer indexed must not be served to an importer from the cache.
        const kept = new Set(files.map((file) => this.absolute(file)));
        this.sources.forgetWhere(
          (fileName) =>
            fileName.startsWith(`${this.root}${path.sep}`) &&
            /\.[cm]?[jt]sx?$/.test(fileName) &&
            !kept.has(fileName) &&
            !fileName.includes(`${path.sep}node_modules${path.sep}`),
        );
      }
      // Programs parsed alike follow one another, so that each reuses the last one's files.
      const partitions = planPartitions(this.root, files).sort((a, b) =>
        settingsKey(a.options).localeCompare(settingsKey(b.options)),
      );
      this.plan = { key, partitions, shares: new Map() };
    }
    return this.plan.partitions;
  }

  private hostOf(partition: Partition): ts.CompilerHost {
    let host = this.hosts.get(partition.id);
    if (!host) {
      host = this.sources.hostFor(partition.options);
      this.hosts.set(partition.id, host);
    }
    return host;
  }

  private createProgram(partition: Partition, oldProgram: ts.Program | undefined): ts.Program {
    return ts.createProgram({
      rootNames: partition.rootNames,
      options: partition.options,
      host: this.hostOf(partition),
      ...(oldProgram && { oldProgram }),
      ...(partition.projectReferences && { projectReferences: partition.projectReferences }),
    });
  }
}

function usedHeapBytes(): number {
  return v8.getHeapStatistics().used_heap_size;
}
