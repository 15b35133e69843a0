import { createHash } from 'node:crypto';
import path from 'node:path';
import ts from 'typescript';
import type { CheckedFile, CheckRequest, PrepareRequest, WorkerMessage } from './checker-protocol.js';
import { FileChecker } from './file-checker.js';
import { type Partition, planPartitions } from './program-partitions.js';
import { SourceCache } from './source-cache.js';

/** Files sent to the main thread per message, so it writes and reports progress as results come. */
const FILES_PER_MESSAGE = 20;

/**
 * The worker's state for one root: its partitions, the programs kept between requests (without
 * their checkers, which hold most of the memory) and the parsed files they share.
 */
export class CheckerSession {
  private sources = new SourceCache();
  private plan: { key: string; partitions: Partition[] } | undefined;
  private readonly programs = new Map<string, ts.Program>();
  private readonly hosts = new Map<string, ts.CompilerHost>();

  constructor(private readonly root: string) {}

  /** Reads the configuration and every file afresh and builds each partition's program. */
  prepare(request: PrepareRequest, post: (message: WorkerMessage) => void): void {
    this.forgetAll();
    const partitions = this.partitionsFor(request.files);
    for (const partition of partitions)
      this.programs.set(partition.id, this.createProgram(partition, undefined));
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
    const partitions = this.partitionsFor(request.files);
    const targets = new Set(request.targets);
    const work = partitions
      .map((partition) => ({ partition, files: partition.owned.filter((file) => targets.has(file)) }))
      .filter(({ files }) => files.length > 0);
    const total = work.reduce((sum, { files }) => sum + files.length, 0);
    const storedNames = new Set(request.storedNames);
    let kept: { partition: Partition; program: ts.Program } | undefined;
    let checked = 0;
    for (const { partition, files } of work) {
      if (kept) this.keep(kept);
      kept = undefined;
      post({ type: 'progress', phase: 'building', partition: partition.label, done: checked, total });
      const program = this.programFor(partition);
      const checker = new FileChecker(this.root, program.getTypeChecker(), storedNames);
      let batch: CheckedFile[] = [];
      for (const file of files) {
        const absolute = this.absolute(file);
        const source = program.getSourceFile(absolute);
        const hash = this.sources.text(absolute)?.hash;
        checked++;
        if (!source || !hash) continue;
        batch.push(checker.check(source, file, hash));
        if (batch.length >= FILES_PER_MESSAGE) {
          post({ type: 'files', files: batch });
          post({ type: 'progress', phase: 'checking', partition: partition.label, done: checked, total });
          batch = [];
        }
      }
      if (batch.length > 0) post({ type: 'files', files: batch });
      post({ type: 'progress', phase: 'checking', partition: partition.label, done: checked, total });
      this.programs.delete(partition.id);
      // The same files in a program whose checker was never asked for: the checker's types go.
      // The last one is made after the answer is sent, which need not wait for it.
      if (request.keepPrograms) kept = { partition, program };
    }
    post({ type: 'done', partitions: work.length, checked });
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

  private partitionsFor(files: readonly string[]): Partition[] {
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
      this.plan = { key, partitions: planPartitions(this.root, files) };
    }
    return this.plan.partitions;
  }

  private programFor(partition: Partition): ts.Program {
    return this.createProgram(partition, this.programs.get(partition.id));
  }

  private createProgram(partition: Partition, oldProgram: ts.Program | undefined): ts.Program {
    let host = this.hosts.get(partition.id);
    if (!host) {
      host = this.sources.hostFor(partition.options);
      this.hosts.set(partition.id, host);
    }
    return ts.createProgram({
      rootNames: partition.rootNames,
      options: partition.options,
      host,
      ...(oldProgram && { oldProgram }),
      ...(partition.projectReferences && { projectReferences: partition.projectReferences }),
    });
  }
}
