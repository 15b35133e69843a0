const indentOf = (line: string) => line.length - line.trimStart().length;

/**
 * The lines of an aria snapshot, or with `find` only the lines that mention it (case-insensitive)
 * and their ancestors, so each match keeps its place in the tree.
 */
export function narrowSnapshot(text: string, find: string | undefined): string[] {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  if (find === undefined || find === '') return lines;
  const needle = find.toLowerCase();
  const kept: string[] = [];
  const ancestors: { line: string; indent: number; kept: boolean }[] = [];
  for (const line of lines) {
    const indent = indentOf(line);
    while (ancestors.length > 0 && (ancestors.at(-1)?.indent ?? 0) >= indent) ancestors.pop();
    const entry = { line, indent, kept: false };
    if (line.toLowerCase().includes(needle)) {
      for (const ancestor of ancestors) {
        if (!ancestor.kept) {
          kept.push(ancestor.line);
          ancestor.kept = true;
        }
      }
      kept.push(line);
      entry.kept = true;
    }
    ancestors.push(entry);
  }
  return kept;
}
