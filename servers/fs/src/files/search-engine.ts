import { statSync } from 'node:fs';
import path from 'node:path';
import { denyMatcher } from '@toolmesh/core';
import picomatch from 'picomatch';
import { looksBinary } from './file-kind.js';
import { readPinnedFileSync } from './pinned.js';
import type {
  FileMatch,
  FileSearchJob,
  ResumePoint,
  SearchJob,
  SearchOutcome,
  SearchScope,
  TextMatch,
  TextSearchJob,
} from './search-job.js';
import { walkTree } from './walk.js';

const MAX_LINE_CHARS = 400;

/**
 * Matches a root-relative path against globs: one without '/' matches the name at any depth,
 * one with '/' the whole path.
 */
export function globMatcher(globs: readonly string[]): (relative: string) => boolean {
  const tests = globs.map((glob) => {
    const test = picomatch(glob, { dot: true });
    return glob.includes('/') ? test : (relative: string) => test(path.posix.basename(relative));
  });
  return (relative) => tests.some((test) => test(relative));
}

function escapeRegex(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function compilePattern(job: Pick<TextSearchJob, 'pattern' | 'regex' | 'caseSensitive'>): RegExp {
  return new RegExp(job.regex ? job.pattern : escapeRegex(job.pattern), job.caseSensitive ? 'm' : 'im');
}

function displayer(scope: SearchScope) {
  return (absolute: string) => {
    const relative = path.relative(scope.primaryRoot, absolute);
    return relative.startsWith('..') || path.isAbsolute(relative)
      ? absolute
      : relative.split(path.sep).join('/');
  };
}

/** Cuts a long (minified) line to a window around the match. */
function clip(line: string, column: number): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  const from = Math.max(0, column - MAX_LINE_CHARS / 2);
  return `${from > 0 ? '…' : ''}${line.slice(from, from + MAX_LINE_CHARS)}…`;
}

/**
 * Collects items from the resume point on until their JSON size would pass the budget; the
 * item that did not fit is where the next page resumes.
 */
class Collector<Item extends { path: string; line?: number }> {
  private used = 0;
  private resumed: boolean;
  readonly items: Item[] = [];
  next: ResumePoint | undefined;
  blockedBytes: number | undefined;

  constructor(private readonly scope: SearchScope) {
    this.resumed = scope.resume === undefined;
  }

  /** Whether items of this path can count yet; walking up to the resume point reads nothing. */
  reached(path: string): boolean {
    if (!this.resumed && path === this.scope.resume?.path) this.resumed = true;
    return this.resumed;
  }

  /** Adds an item; false once the budget is full. */
  add(item: Item): boolean {
    const resume = this.scope.resume;
    if (resume?.line !== undefined && item.path === resume.path && (item.line ?? 0) < resume.line)
      return true;
    const bytes = Buffer.byteLength(JSON.stringify(item), 'utf8');
    if (this.used + bytes > this.scope.budgetBytes) {
      this.next = { path: item.path, ...(item.line !== undefined && { line: item.line }) };
      if (this.items.length === 0) this.blockedBytes = bytes;
      return false;
    }
    this.items.push(item);
    this.used += bytes;
    return true;
  }

  outcome(exhausted: boolean, filesScanned: number, skippedLargeFiles = 0): SearchOutcome<Item> {
    if (exhausted && !this.resumed) {
      throw new Error('the file the cursor points at is gone: repeat the search without cursor');
    }
    return {
      items: this.items,
      exhausted,
      filesScanned,
      skippedLargeFiles,
      ...(this.next && { next: this.next }),
      ...(this.blockedBytes !== undefined && { blockedBytes: this.blockedBytes }),
    };
  }
}

function* candidateFiles(scope: SearchScope, isFile: boolean) {
  const deniedBy = denyMatcher(scope.deny);
  const denied = (relative: string) => deniedBy(relative) !== undefined;
  if (isFile) {
    yield {
      absolute: scope.start,
      relative: path.relative(scope.root, scope.start).split(path.sep).join('/'),
      type: 'file' as const,
    };
    return;
  }
  for (const entry of walkTree({
    root: scope.root,
    start: scope.start,
    maxDepth: Number.POSITIVE_INFINITY,
    includeIgnored: scope.includeIgnored,
    exclude: denied,
  })) {
    yield entry;
  }
}

function searchText(job: TextSearchJob): SearchOutcome<TextMatch> {
  const pattern = compilePattern(job);
  const fastNeedle = !job.regex && job.caseSensitive ? Buffer.from(job.pattern, 'utf8') : undefined;
  const inScope = job.globs.length > 0 ? globMatcher(job.globs) : () => true;
  const display = displayer(job);
  const collector = new Collector<TextMatch>(job);
  let filesScanned = 0;
  let skippedLargeFiles = 0;
  const startIsFile = statSync(job.start).isFile();
  for (const entry of candidateFiles(job, startIsFile)) {
    if (entry.type !== 'file' || (!startIsFile && !inScope(entry.relative))) continue;
    const shown = display(entry.absolute);
    if (!collector.reached(shown)) continue;
    let buffer: Buffer | undefined;
    try {
      buffer = readPinnedFileSync(entry.absolute, job.maxFileBytes);
    } catch {
      continue;
    }
    if (!buffer) {
      skippedLargeFiles++;
      continue;
    }
    filesScanned++;
    if (looksBinary(buffer)) continue;
    if (fastNeedle && buffer.indexOf(fastNeedle) === -1) continue;
    const text = buffer.toString('utf8');
    if (!pattern.test(text)) continue;
    const lines = text.split('\n');
    for (let index = 0; index < lines.length; index++) {
      const line = lines[index] as string;
      const found = pattern.exec(line);
      if (!found) continue;
      const match: TextMatch = {
        path: display(entry.absolute),
        line: index + 1,
        column: found.index + 1,
        text: clip(line, found.index),
      };
      if (job.contextLines > 0) {
        match.before = lines.slice(Math.max(0, index - job.contextLines), index).map((l) => clip(l, 0));
        match.after = lines.slice(index + 1, index + 1 + job.contextLines).map((l) => clip(l, 0));
      }
      if (!collector.add(match)) return collector.outcome(false, filesScanned, skippedLargeFiles);
    }
  }
  return collector.outcome(true, filesScanned, skippedLargeFiles);
}

function searchFiles(job: FileSearchJob): SearchOutcome<FileMatch> {
  const matches = globMatcher(job.patterns);
  const display = displayer(job);
  const collector = new Collector<FileMatch>(job);
  let filesScanned = 0;
  for (const entry of candidateFiles(job, false)) {
    filesScanned++;
    if (!matches(entry.relative)) continue;
    const match = { path: display(entry.absolute), type: entry.type };
    if (!collector.reached(match.path)) continue;
    if (collector.items.length >= job.maxResults) {
      collector.next = { path: match.path };
      return collector.outcome(false, filesScanned);
    }
    if (!collector.add(match)) return collector.outcome(false, filesScanned);
  }
  return collector.outcome(true, filesScanned);
}

export function runSearchJob(job: SearchJob): SearchOutcome<TextMatch> | SearchOutcome<FileMatch> {
  return job.kind === 'text' ? searchText(job) : searchFiles(job);
}
