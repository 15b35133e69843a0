import type ts from 'typescript';

const lineStarts = new WeakMap<ts.SourceFile, number[]>();

/**
 * The 1-based line of a position, counting `\n` only, as tree-sitter does (the compiler's own
 * line map also breaks at U+2028 and U+2029, which would shift lines against the stored ones).
 */
export function lineAt(file: ts.SourceFile, position: number): number {
  let starts = lineStarts.get(file);
  if (!starts) {
    starts = [0];
    const text = file.text;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
    lineStarts.set(file, starts);
  }
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((starts[middle] as number) <= position) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

/** The line a node starts on, past its leading comments. */
export function lineOfNode(node: ts.Node): number {
  const file = node.getSourceFile();
  return lineAt(file, node.getStart(file));
}
