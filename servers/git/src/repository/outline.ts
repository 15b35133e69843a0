import type { Language, SymbolKind, Syntax } from './languages.js';

export interface Definition {
  name: string;
  /** The name with its enclosing definitions, e.g. `Parser.parse`. */
  qualifiedName: string;
  kind: SymbolKind;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
}

/** How far below its first line a definition's opening brace may be (multi-line signatures). */
const SIGNATURE_LINES = 12;

/** Each line with strings and comments blanked out, so that only code braces and semicolons remain. */
export function codeLines(text: string, syntax: Syntax): string[] {
  const out: string[] = [];
  let line = '';
  let quote: string | undefined;
  let inBlockComment = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (char === '\n') {
      out.push(line);
      line = '';
      // Only template literals and block comments run across lines.
      if (quote !== '`') quote = undefined;
      continue;
    }
    if (inBlockComment) {
      if (char === '*' && text[index + 1] === '/') {
        inBlockComment = false;
        index++;
        line += '  ';
      } else line += ' ';
      continue;
    }
    if (quote) {
      if (char === '\\') {
        line += ' ';
        if (text[index + 1] !== '\n') {
          line += ' ';
          index++;
        }
      } else {
        if (char === quote) quote = undefined;
        line += ' ';
      }
      continue;
    }
    if (syntax.blockComments && char === '/' && text[index + 1] === '*') {
      inBlockComment = true;
      index++;
      line += '  ';
      continue;
    }
    const lineComment = syntax.lineComments.find((start) => text.startsWith(start, index));
    if (lineComment) {
      const end = text.indexOf('\n', index);
      const stop = end < 0 ? text.length : end;
      line += ' '.repeat(stop - index);
      index = stop - 1;
      continue;
    }
    if (syntax.characterLiterals && char === "'") {
      const literal = /^'(?:\\.[^']{0,8}|[^'\\])'/.exec(text.slice(index, index + 12));
      if (literal) {
        line += ' '.repeat(literal[0].length);
        index += literal[0].length - 1;
        continue;
      }
    }
    if (syntax.quotes.includes(char)) {
      quote = char;
      line += ' ';
      continue;
    }
    line += char;
  }
  out.push(line);
  return out;
}

function indentOf(line: string): number {
  const match = /^[ \t]*/.exec(line)?.[0] ?? '';
  return match.replace(/\t/g, '    ').length;
}

/** Last line of a braced definition opening at `start` (0-based); the opening line itself when it has no body. */
function braceEnd(
  code: readonly string[],
  start: number,
  column: number,
  opensDefinition: (line: number) => boolean,
): number {
  let depth = 0;
  let opened = false;
  for (let line = start; line < code.length; line++) {
    if (!opened && line > start && (line - start > SIGNATURE_LINES || opensDefinition(line))) return line - 1;
    const text = (code[line] as string).slice(line === start ? column : 0);
    for (const char of text) {
      if (char === '{') {
        depth++;
        opened = true;
      } else if (char === '}' && opened) {
        depth--;
        if (depth === 0) return line;
      } else if (char === ';' && !opened) return line;
    }
  }
  return opened ? code.length - 1 : start;
}

/** Last line of an indented block (Python) or of one closed by `end` at its own indentation (Ruby). */
function indentEnd(lines: readonly string[], start: number, closedByEnd: boolean): number {
  const indent = indentOf(lines[start] as string);
  let last = start;
  for (let line = start + 1; line < lines.length; line++) {
    const text = lines[line] as string;
    if (text.trim() === '') continue;
    const here = indentOf(text);
    if (here <= indent) {
      if (closedByEnd && here === indent && /^\s*end\b/.test(text)) return line;
      // A signature's closing bracket sits at the definition's own indentation.
      if (here === indent && /^\s*[)\]]/.test(text)) {
        last = line;
        continue;
      }
      return last;
    }
    last = line;
  }
  return last;
}

/**
 * The definitions of a file (functions, methods, classes…) with the lines each spans, found by
 * the language's declaration patterns and its block rule: matching braces outside strings and
 * comments, or indentation. A heuristic outline, not a parser; see the README for its limits.
 */
export function outlineOf(text: string, language: Language): Definition[] {
  const lines = text.split('\n');
  const code = language.blocks === 'braces' ? codeLines(text, language.syntax) : lines;
  const opening = lines.map((line, index) => {
    // Declarations are matched on the code, so a commented-out one does not count.
    const source = language.blocks === 'braces' ? (code[index] as string) : line;
    if (language.blocks !== 'braces' && /^\s*#/.test(line)) return undefined;
    for (const { kind, pattern } of language.definitions) {
      const found = pattern.exec(source);
      const name = found?.groups?.name;
      // Braces are counted from just after the name, so that an opening brace the pattern matched counts.
      if (found && name) return { kind, name, column: source.indexOf(name, found.index) + name.length };
    }
    return undefined;
  });
  const definitions: Definition[] = [];
  const open: Definition[] = [];
  for (let index = 0; index < lines.length; index++) {
    const found = opening[index];
    if (!found) continue;
    const end =
      language.blocks === 'braces'
        ? braceEnd(code, index, found.column, (line) => opening[line] !== undefined)
        : indentEnd(lines, index, language.blocks === 'end');
    while (open.length > 0 && (open.at(-1) as Definition).endLine < index + 1) open.pop();
    const parent = open.at(-1);
    const definition: Definition = {
      name: found.name,
      qualifiedName: parent ? `${parent.qualifiedName}.${found.name}` : found.name,
      kind: found.kind === 'function' && parent && isContainer(parent.kind) ? 'method' : found.kind,
      startLine: index + 1,
      endLine: Math.max(index, end) + 1,
    };
    definitions.push(definition);
    open.push(definition);
  }
  return definitions;
}

function isContainer(kind: SymbolKind): boolean {
  return kind === 'class' || kind === 'struct' || kind === 'trait' || kind === 'impl' || kind === 'interface';
}

/** For each line (1-based index), the innermost definition spanning it. */
export function ownersOf(definitions: readonly Definition[], lineCount: number): (Definition | undefined)[] {
  const owners: (Definition | undefined)[] = new Array(lineCount + 1);
  // Definitions come in start order, so a nested one overwrites the lines of its parent.
  for (const definition of definitions) {
    for (let line = definition.startLine; line <= Math.min(definition.endLine, lineCount); line++) {
      owners[line] = definition;
    }
  }
  return owners;
}
