import { unquotePath } from './quoted-path.js';

export interface PatchHunk {
  /** The `@@ -a,b +c,d @@ context` line. */
  header: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** What git printed after the second `@@`: the enclosing function by its funcname rules. */
  context: string;
  /** The lines after the header, each starting with ' ', '+', '-' or '\'. */
  lines: string[];
}

export interface PatchFile {
  /** The lines from `diff --git` to the first hunk: modes, index, renames, ---/+++. */
  header: string[];
  oldPath: string | null;
  newPath: string | null;
  binary: boolean;
  hunks: PatchHunk[];
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

function sidePath(value: string, prefix: string): string | null {
  const unquoted = unquotePath(value.replace(/\t$/, ''));
  if (unquoted === '/dev/null') return null;
  return unquoted.startsWith(prefix) ? unquoted.slice(prefix.length) : unquoted;
}

/** Both paths of a `diff --git a/X b/Y` line when no ---/+++ or rename lines say them (binary, mode only). */
function pathsOfGitLine(line: string): [string, string] | undefined {
  const rest = line.slice('diff --git '.length);
  if (rest.startsWith('"')) {
    const quoted = /^("(?:[^"\\]|\\.)*") (.*)$/.exec(rest);
    if (!quoted) return undefined;
    return [sidePath(quoted[1] as string, 'a/') ?? '', sidePath(quoted[2] as string, 'b/') ?? ''];
  }
  // Unquoted and the same on both sides: "a/X b/X", so X is half of what is left.
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest.slice(2, half) === rest.slice(half + 3)) {
    const same = rest.slice(2, half);
    return [same, same];
  }
  return undefined;
}

/** Splits `git diff` patch output into files and hunks, keeping every line as printed. */
export function parseUnifiedDiff(text: string): PatchFile[] {
  const files: PatchFile[] = [];
  let file: PatchFile | undefined;
  let hunk: PatchHunk | undefined;
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      const paths = pathsOfGitLine(line);
      file = {
        header: [line],
        oldPath: paths?.[0] ?? null,
        newPath: paths?.[1] ?? null,
        binary: false,
        hunks: [],
      };
      hunk = undefined;
      files.push(file);
      continue;
    }
    if (!file) continue;
    const opened = HUNK.exec(line);
    if (opened) {
      hunk = {
        header: line,
        oldStart: Number(opened[1]),
        oldLines: opened[2] === undefined ? 1 : Number(opened[2]),
        newStart: Number(opened[3]),
        newLines: opened[4] === undefined ? 1 : Number(opened[4]),
        context: opened[5] ?? '',
        lines: [],
      };
      file.hunks.push(hunk);
      continue;
    }
    if (hunk) {
      hunk.lines.push(line);
      continue;
    }
    file.header.push(line);
    if (line.startsWith('--- ')) file.oldPath = sidePath(line.slice(4), 'a/');
    else if (line.startsWith('+++ ')) file.newPath = sidePath(line.slice(4), 'b/');
    else if (line.startsWith('rename from ') || line.startsWith('copy from ')) {
      file.oldPath = unquotePath(line.slice(line.indexOf(' from ') + 6));
    } else if (line.startsWith('rename to ') || line.startsWith('copy to ')) {
      file.newPath = unquotePath(line.slice(line.indexOf(' to ') + 4));
    } else if (line.startsWith('new file mode')) file.oldPath = null;
    else if (line.startsWith('deleted file mode')) file.newPath = null;
    else if (line.startsWith('Binary files ')) file.binary = true;
  }
  return files;
}

/** The text of a file's patch, as git printed it. */
export function patchText(file: PatchFile, hunks: readonly PatchHunk[] = file.hunks): string {
  const parts = [...file.header];
  for (const hunk of hunks) parts.push(hunk.header, ...hunk.lines);
  return `${parts.join('\n')}\n`;
}

/** The path a patch file is known by: the new one, or the old one when the file was deleted. */
export function pathOf(file: PatchFile): string {
  return file.newPath ?? file.oldPath ?? '';
}
