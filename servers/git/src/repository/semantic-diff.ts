import { readTexts } from './blobs.js';
import { type Comparison, sidesOf } from './comparison.js';
import type { DiffOptions, FileSummary } from './diff-summary.js';
import { type FilePatch, patchBatches } from './file-patches.js';
import { languageOf, type SymbolKind } from './languages.js';
import { type Definition, outlineOf, ownersOf } from './outline.js';
import type { Repository } from './repository.js';
import type { PatchHunk } from './unified-diff.js';
import { userdiffConfig } from './userdiff-attributes.js';
import { withheldReason } from './withheld-secrets.js';

/** The name changed lines outside every definition are reported under. */
export const TOP_LEVEL = '(top level)';

export interface SymbolChange {
  /** Qualified by its enclosing definitions, e.g. `Parser.parse`; TOP_LEVEL for lines outside all. */
  name: string;
  kind: SymbolKind | 'top-level';
  /** added: exists only in the new version; removed: only in the old; modified: in both. */
  change: 'added' | 'removed' | 'modified';
  addedLines: number;
  removedLines: number;
  /** Where it starts: in the new version, or in the old one when removed. */
  line: number;
}

export interface SemanticHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** The enclosing function git names in the hunk header (by our attributes and its userdiff drivers). */
  header: string;
  /** The definitions whose lines this hunk changes, innermost first. */
  symbols: string[];
}

export interface SemanticFile extends FileSummary {
  language: string | null;
  /** Whether the definitions come from an outline of the file (else from git's hunk headers only). */
  outlined: boolean;
  hunks: SemanticHunk[];
  symbols: SymbolChange[];
}

interface Outline {
  definitions: Definition[];
  owners: (Definition | undefined)[];
}

function outline(text: string | undefined, file: string): Outline | undefined {
  const language = languageOf(file);
  if (text === undefined || !language) return undefined;
  const definitions = outlineOf(text, language);
  return { definitions, owners: ownersOf(definitions, text.split('\n').length) };
}

/** The line numbers a hunk removes (old side) and adds (new side). */
function changedLines(hunk: PatchHunk): { removed: number[]; added: number[] } {
  const removed: number[] = [];
  const added: number[] = [];
  let oldLine = hunk.oldStart;
  let newLine = hunk.newStart;
  for (const line of hunk.lines) {
    if (line.startsWith('-')) removed.push(oldLine++);
    else if (line.startsWith('+')) added.push(newLine++);
    else if (line.startsWith(' ')) {
      oldLine++;
      newLine++;
    }
  }
  return { removed, added };
}

/**
 * Maps every changed line of a file to the innermost definition that holds it — removed lines in
 * the old version's outline, added lines in the new one's — and sums the changes per definition.
 */
export function semanticFile(
  { file, patch }: FilePatch,
  oldText: string | undefined,
  newText: string | undefined,
): SemanticFile {
  const language = languageOf(file.path);
  const before = outline(oldText, file.oldPath ?? file.path);
  const after = outline(newText, file.path);
  const changes = new Map<string, SymbolChange>();
  const touch = (definition: Definition | undefined, side: 'added' | 'removed', line: number) => {
    const name = definition?.qualifiedName ?? TOP_LEVEL;
    let change = changes.get(name);
    if (!change) {
      change = {
        name,
        kind: definition?.kind ?? 'top-level',
        change: 'modified',
        addedLines: 0,
        removedLines: 0,
        line: definition ? definition.startLine : line,
      };
      changes.set(name, change);
    }
    if (side === 'added') {
      change.addedLines++;
      if (definition) change.line = definition.startLine;
    } else change.removedLines++;
    return name;
  };
  const hunks = (patch?.hunks ?? []).map((hunk) => {
    const { removed, added } = changedLines(hunk);
    const symbols = new Set<string>();
    if (before) for (const line of removed) symbols.add(touch(before.owners[line], 'removed', line));
    if (after) for (const line of added) symbols.add(touch(after.owners[line], 'added', line));
    return {
      oldStart: hunk.oldStart,
      oldLines: hunk.oldLines,
      newStart: hunk.newStart,
      newLines: hunk.newLines,
      header: hunk.context.trim(),
      symbols: [...symbols],
    };
  });
  const existedBefore = new Set(before?.definitions.map((definition) => definition.qualifiedName));
  const existsAfter = new Set(after?.definitions.map((definition) => definition.qualifiedName));
  for (const change of changes.values()) {
    if (change.name === TOP_LEVEL) continue;
    if (!existedBefore.has(change.name) && existsAfter.has(change.name)) change.change = 'added';
    else if (existedBefore.has(change.name) && !existsAfter.has(change.name)) change.change = 'removed';
  }
  return {
    ...file,
    language: language?.name ?? null,
    outlined: Boolean(before || after),
    hunks,
    symbols: [...changes.values()],
  };
}

/**
 * The semantic view of the summarised files from `start`, one batch at a time: a patch without
 * context lines whose hunk headers git fills from our attributes, and the files' old and new
 * texts for the outlines. `accept` returns false to stop.
 */
export async function walkSemanticFiles(
  repository: Repository,
  comparison: Comparison,
  files: readonly FileSummary[],
  start: number,
  options: DiffOptions & { budgetBytes: number },
  accept: (file: SemanticFile, index: number) => boolean,
): Promise<void> {
  const sides = sidesOf(comparison);
  // A semantic entry is far smaller than the patch it is made from.
  const format = { contextLines: 0, config: userdiffConfig(), budgetBytes: options.budgetBytes * 4 };
  for await (const batch of patchBatches(repository, comparison, files, start, format, options)) {
    const outlinable = batch.filter(
      ({ file }) =>
        languageOf(file.path) &&
        !file.binary &&
        !withheldReason(file.path) &&
        !(file.oldPath && withheldReason(file.oldPath)),
    );
    const oldTexts = await readTexts(
      repository,
      sides.old,
      outlinable.filter(({ file }) => file.change !== 'added').map(({ file }) => file.oldPath ?? file.path),
      options.signal,
    );
    const newTexts = await readTexts(
      repository,
      sides.new,
      outlinable.filter(({ file }) => file.change !== 'deleted').map(({ file }) => file.path),
      options.signal,
    );
    for (const entry of batch) {
      const { file } = entry;
      const semantic = semanticFile(entry, oldTexts.get(file.oldPath ?? file.path), newTexts.get(file.path));
      if (!accept(semantic, entry.index)) return;
    }
  }
}
