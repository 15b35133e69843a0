import { promises as fs } from 'node:fs';
import path from 'node:path';
import { errnoCode, isInside, type PathGuard, ToolError } from '@toolmesh/core';
import { createTwoFilesPatch } from 'diff';
import { applyChanges, ChangeFailure, type PathState, readPathState } from './change-set.js';
import { looksBinary } from './file-kind.js';
import { sha256 } from './hash.js';

export type PatchOperation =
  | { op: 'write'; path: string; content: string; encoding?: 'utf8' | 'base64'; expectedSha256?: string }
  | {
      op: 'replace';
      path: string;
      oldText: string;
      newText: string;
      replaceAll?: boolean;
      expectedSha256?: string;
    }
  | { op: 'delete'; path: string; expectedSha256?: string }
  | { op: 'move'; from: string; to: string; overwrite?: boolean; expectedSha256?: string }
  | { op: 'mkdir'; path: string };

export type PathChange = 'created' | 'modified' | 'deleted';

export interface PatchResult {
  files: { path: string; change: PathChange; sha256?: string; bytes?: number }[];
  folders: { path: string; change: 'created' | 'deleted' }[];
  diff: string;
}

/** Files a patch may hold in memory at once; bigger ones are moved or edited by other means. */
export const PATCH_FILE_LIMIT = 64 * 1024 * 1024;
const DIFF_LIMIT = 64_000;

export class PatchFailure extends ToolError {
  constructor(index: number, operation: PatchOperation, reason: string, applied: boolean) {
    const subject = operation.op === 'move' ? `${operation.from} -> ${operation.to}` : operation.path;
    super(
      `Operation ${index + 1} (${operation.op} ${subject}) failed: ${reason}. ${
        applied ? 'Every change of this patch was rolled back' : 'Nothing was changed'
      }.`,
      'patch_failed',
    );
  }
}

class Overlay {
  private readonly states = new Map<string, PathState>();
  readonly originals = new Map<string, PathState>();
  /** The operation that last touched each path, to name it when committing that path fails. */
  readonly lastTouchedBy = new Map<string, number>();

  async get(absolute: string): Promise<PathState> {
    const overlaid = this.states.get(absolute);
    if (overlaid) return overlaid;
    return this.original(absolute);
  }

  async original(absolute: string): Promise<PathState> {
    let state = this.originals.get(absolute);
    if (!state) {
      const stat = await fs.lstat(absolute).catch(() => undefined);
      if (stat?.isFile() && stat.size > PATCH_FILE_LIMIT) {
        throw new Error(`it is ${stat.size} bytes, over the ${PATCH_FILE_LIMIT}-byte limit of a patch`);
      }
      if (stat?.isSymbolicLink()) throw new Error('it is a symlink; patch the file it points to');
      state = await readPathState(absolute);
      this.originals.set(absolute, state);
    }
    return state;
  }

  set(absolute: string, state: PathState, index: number): void {
    this.states.set(absolute, state);
    this.lastTouchedBy.set(absolute, index);
  }

  entries(): [string, PathState][] {
    return [...this.states];
  }

  /** Children of a folder as they stand after the operations so far. */
  async children(folder: string): Promise<string[]> {
    const names = new Set<string>();
    const onDisk = await fs.readdir(folder).catch(() => [] as string[]);
    for (const name of onDisk) names.add(path.join(folder, name));
    for (const [absolute] of this.states) if (path.dirname(absolute) === folder) names.add(absolute);
    const present: string[] = [];
    for (const child of names) if ((await this.get(child)).kind !== 'absent') present.push(child);
    return present;
  }
}

function countOccurrences(text: string, needle: string): number[] {
  const positions: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length))
    positions.push(at);
  return positions;
}

function lineOf(text: string, position: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < position; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function checkPrecondition(state: PathState, expected: string | undefined): void {
  if (expected === undefined) return;
  if (state.kind !== 'file') throw new Error(`expectedSha256 was given but there is no file`);
  const actual = sha256(state.content);
  if (actual !== expected.toLowerCase()) {
    throw new Error(
      `the file changed since it was read (sha256 is ${actual}, expected ${expected}); read it again`,
    );
  }
}

async function ensureParents(
  overlay: Overlay,
  guard: PathGuard,
  absolute: string,
  index: number,
): Promise<void> {
  const root =
    guard.realRoots.find((candidate) => isInside(candidate, absolute)) ?? path.parse(absolute).root;
  const missing: string[] = [];
  for (let parent = path.dirname(absolute); parent.length >= root.length; parent = path.dirname(parent)) {
    const state = await overlay.get(parent);
    if (state.kind === 'directory') break;
    if (state.kind === 'file') throw new Error(`its parent ${parent} is a file`);
    missing.push(parent);
    if (parent === root) break;
  }
  for (const parent of missing.reverse()) overlay.set(parent, { kind: 'directory', mode: 0o755 }, index);
}

async function applyOperation(overlay: Overlay, guard: PathGuard, operation: PatchOperation, index: number) {
  switch (operation.op) {
    case 'write': {
      const target = guard.resolve(operation.path, 'write').absolute;
      const state = await overlay.get(target);
      if (state.kind === 'directory') throw new Error('a folder is there; write needs a file path');
      checkPrecondition(await overlay.original(target), operation.expectedSha256);
      await ensureParents(overlay, guard, target, index);
      const content = Buffer.from(operation.content, operation.encoding ?? 'utf8');
      overlay.set(target, { kind: 'file', content, mode: state.kind === 'file' ? state.mode : 0o644 }, index);
      return;
    }
    case 'replace': {
      const target = guard.resolve(operation.path, 'write').absolute;
      const state = await overlay.get(target);
      if (state.kind !== 'file') throw new Error('there is no such file');
      checkPrecondition(await overlay.original(target), operation.expectedSha256);
      if (operation.oldText.length === 0)
        throw new Error('oldText is empty; use write to replace a whole file');
      if (looksBinary(state.content)) throw new Error('it is a binary file; use write with encoding base64');
      const text = state.content.toString('utf8');
      const found = countOccurrences(text, operation.oldText);
      if (found.length === 0) {
        throw new Error(
          'oldText was not found (it must match exactly, including whitespace and line breaks)',
        );
      }
      if (found.length > 1 && !operation.replaceAll) {
        const lines = found.slice(0, 10).map((position) => lineOf(text, position));
        throw new Error(
          `oldText occurs ${found.length} times (lines ${lines.join(', ')}); add surrounding lines to make it unique, or set replaceAll`,
        );
      }
      const replaced = operation.replaceAll
        ? text.split(operation.oldText).join(operation.newText)
        : text.replace(operation.oldText, () => operation.newText);
      overlay.set(target, { kind: 'file', content: Buffer.from(replaced, 'utf8'), mode: state.mode }, index);
      return;
    }
    case 'delete': {
      const resolved = guard.resolve(operation.path, 'write');
      if (resolved.relative === '') throw new Error('it is a root; a root cannot be deleted');
      const state = await overlay.get(resolved.absolute);
      if (state.kind === 'absent') throw new Error('there is nothing to delete');
      checkPrecondition(await overlay.original(resolved.absolute), operation.expectedSha256);
      if (state.kind === 'directory') {
        const children = await overlay.children(resolved.absolute);
        if (children.length > 0) {
          throw new Error(`the folder is not empty (${children.length} entries); delete its contents first`);
        }
      }
      overlay.set(resolved.absolute, { kind: 'absent' }, index);
      return;
    }
    case 'move': {
      const from = guard.resolve(operation.from, 'write').absolute;
      const to = guard.resolve(operation.to, 'write').absolute;
      const source = await overlay.get(from);
      if (source.kind !== 'file')
        throw new Error(
          `the source ${source.kind === 'absent' ? 'does not exist' : 'is a folder; move takes files only'}`,
        );
      checkPrecondition(await overlay.original(from), operation.expectedSha256);
      if (from === to) throw new Error('source and destination are the same file');
      const destination = await overlay.get(to);
      if (destination.kind === 'directory')
        throw new Error('the destination is a folder; name the file inside it');
      if (destination.kind === 'file' && !operation.overwrite) {
        throw new Error('the destination exists; set overwrite to replace it');
      }
      await ensureParents(overlay, guard, to, index);
      overlay.set(to, source, index);
      overlay.set(from, { kind: 'absent' }, index);
      return;
    }
    case 'mkdir': {
      const target = guard.resolve(operation.path, 'write').absolute;
      const state = await overlay.get(target);
      if (state.kind === 'file') throw new Error('a file is there');
      if (state.kind === 'directory') return;
      await ensureParents(overlay, guard, target, index);
      overlay.set(target, { kind: 'directory', mode: 0o755 }, index);
    }
  }
}

function sameState(a: PathState, b: PathState): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'file' && b.kind === 'file') return a.mode === b.mode && a.content.equals(b.content);
  return true;
}

function renderDiff(label: string, before: PathState, after: PathState): string {
  const text = (state: PathState) => (state.kind === 'file' ? state.content.toString('utf8') : '');
  const binary = [before, after].some((state) => state.kind === 'file' && looksBinary(state.content));
  if (binary) return `Binary file ${label} ${after.kind === 'absent' ? 'deleted' : 'changed'}\n`;
  return createTwoFilesPatch(
    before.kind === 'file' ? `a/${label}` : '/dev/null',
    after.kind === 'file' ? `b/${label}` : '/dev/null',
    text(before),
    text(after),
    undefined,
    undefined,
    { context: 3 },
  );
}

/**
 * Runs a patch transactionally. Every operation is first played against an in-memory view in
 * which later operations see the results of earlier ones; only a patch that plays through is
 * written, and a write that fails on disk rolls every path back. `dryRun` stops after playing.
 */
export async function runPatch(
  guard: PathGuard,
  operations: readonly PatchOperation[],
  options: { dryRun: boolean; display: (absolute: string) => string },
): Promise<PatchResult> {
  const overlay = new Overlay();
  for (const [index, operation] of operations.entries()) {
    try {
      await applyOperation(overlay, guard, operation, index);
    } catch (error) {
      throw new PatchFailure(index, operation, (error as Error).message, false);
    }
  }

  const targets = new Map<string, PathState>();
  const result: PatchResult = { files: [], folders: [], diff: '' };
  let diff = '';
  for (const [absolute, after] of overlay.entries().sort(([a], [b]) => (a < b ? -1 : 1))) {
    const before = await overlay.original(absolute);
    if (sameState(before, after)) continue;
    targets.set(absolute, after);
    const label = options.display(absolute);
    if (before.kind === 'directory' || after.kind === 'directory') {
      result.folders.push({ path: label, change: after.kind === 'absent' ? 'deleted' : 'created' });
      continue;
    }
    const change: PathChange =
      before.kind === 'absent' ? 'created' : after.kind === 'absent' ? 'deleted' : 'modified';
    result.files.push({
      path: label,
      change,
      ...(after.kind === 'file' && { sha256: sha256(after.content), bytes: after.content.length }),
    });
    if (diff.length < DIFF_LIMIT) diff += renderDiff(label, before, after);
  }
  result.diff =
    diff.length > DIFF_LIMIT
      ? `${diff.slice(0, DIFF_LIMIT)}\n… diff cut at ${DIFF_LIMIT} characters\n`
      : diff;

  if (!options.dryRun) {
    try {
      await applyChanges(targets, overlay.originals);
    } catch (error) {
      if (!(error instanceof ChangeFailure)) throw error;
      const index = overlay.lastTouchedBy.get(error.path) ?? 0;
      const code = errnoCode(error.cause);
      const reason = `${code ? `${code}: ` : ''}${(error.cause as Error)?.message ?? String(error.cause)}`;
      throw new PatchFailure(index, operations[index] as PatchOperation, reason, true);
    }
  }
  return result;
}
