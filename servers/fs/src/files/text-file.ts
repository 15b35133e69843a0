import { ToolError } from '@toolmesh/core';
import { looksBinary } from './file-kind.js';
import { sha256 } from './hash.js';
import { withPinnedFile } from './pinned.js';

export interface TextRange {
  content: string;
  sha256: string;
  totalLines: number;
  startLine: number;
  endLine: number;
  nextStartLine?: number;
  truncated: boolean;
  blockedByBudget?: boolean;
  minimumRequiredBytes?: number;
}

/** Splits text into lines; a final line break ends the last line instead of starting an empty one. */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Reads lines `startLine`..`endLine` (1-based, inclusive) of a UTF-8 text file, stopping before
 * the line that would take the output past `budgetBytes`.
 */
export async function readTextRange(
  absolute: string,
  display: string,
  options: { startLine: number; endLine?: number; budgetBytes: number; maxFileBytes: number },
): Promise<TextRange> {
  const notAFile = () => new ToolError(`${display} is not a file: use list_dir for folders.`, 'not_a_file');
  const buffer = await withPinnedFile(absolute, notAFile, async (handle, stat) => {
    if (stat.size > options.maxFileBytes) {
      throw new ToolError(
        `${display} is ${stat.size} bytes, over maxFileBytes (${options.maxFileBytes}): search it with search_text, or raise maxFileBytes.`,
        'too_large',
      );
    }
    return handle.readFile();
  });
  if (looksBinary(buffer)) {
    throw new ToolError(
      `${display} is a binary file: read_file returns text only. Use view_image for images, stat_file for size and hash.`,
      'binary',
    );
  }
  const text = buffer.toString('utf8');
  const lines = splitLines(text);
  const totalLines = lines.length;
  const { startLine } = options;
  if (startLine > Math.max(totalLines, 1)) {
    throw new ToolError(
      `startLine ${startLine} is past the end: ${display} has ${totalLines} lines.`,
      'out_of_range',
    );
  }
  const last = Math.min(options.endLine ?? totalLines, totalLines);
  const taken: string[] = [];
  let used = 0;
  let blocked: number | undefined;
  for (let line = startLine; line <= last; line++) {
    const content = lines[line - 1] as string;
    const bytes = Buffer.byteLength(content, 'utf8') + 1;
    if (used + bytes > options.budgetBytes) {
      if (taken.length === 0) blocked = bytes;
      break;
    }
    used += bytes;
    taken.push(content);
  }
  const endLine = startLine + taken.length - 1;
  const truncated = endLine < last;
  // The content is the file's own bytes: a last line without a line break stays without one.
  const endsWithBreak = endLine < totalLines || text.endsWith('\n');
  return {
    content: taken.length > 0 ? `${taken.join('\n')}${endsWithBreak ? '\n' : ''}` : '',
    sha256: sha256(buffer),
    totalLines,
    startLine,
    endLine: Math.max(endLine, startLine - 1),
    ...(endLine < totalLines && { nextStartLine: endLine + 1 }),
    truncated,
    ...(blocked !== undefined && { blockedByBudget: true, minimumRequiredBytes: blocked }),
  };
}
