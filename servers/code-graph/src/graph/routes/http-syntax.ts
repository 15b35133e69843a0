import type { CallShape, UrlPiece } from '../facts.js';
import type { SyntaxNode } from '../syntax.js';

/**
 * What the route and client detectors need of one language's syntax, made once per file: the
 * string constants it reads URLs through are that file's.
 */
export interface HttpSyntax {
  /** Node types of calls, as the language's extractor records them. */
  readonly callTypes: readonly string[];
  /** The callee name the extractor gives a call (`get` for `app.get(…)`), to find its CallFact. */
  calleeName(call: SyntaxNode): string | undefined;
  /** A function passed by reference (`getUser`, `users.get`) as a call the resolver can bind. */
  referenceShape(node: SyntaxNode): CallShape | undefined;
  /** A URL or path expression as pieces, with the file's string constants substituted; undefined when it is not a string. */
  urlPieces(node: SyntaxNode): UrlPiece[] | undefined;
  /**
   * When `identifier` is a parameter of an enclosing function (`fastify` in a Fastify plugin,
   * `r` in a Gin `func register(r *gin.RouterGroup)`): that function, by the name a mount uses.
   */
  parameterOwner(identifier: SyntaxNode): string | undefined;
}

/** A name for a function that has none (an inline plugin or handler), unique in its file. */
export function anonymousName(fn: SyntaxNode): string {
  return `@${fn.startIndex}`;
}

/** The text of an expression when it is a string with nothing computed in it. */
export function stringValue(syntax: HttpSyntax, node: SyntaxNode | null | undefined): string | undefined {
  const pieces = node ? syntax.urlPieces(node) : undefined;
  return pieces?.every((piece) => typeof piece === 'string') ? pieces.join('') : undefined;
}

/** A file's names bound to values, looked up as of a position: the last binding before it wins. */
export class Constants {
  private table?: Map<string, SyntaxNode[]>;
  private readonly reading = new Set<string>();

  constructor(private readonly collect: () => Iterable<[string, SyntaxNode]>) {}

  /** Reads the value bound to `name` before `at` with `read`; a binding that refers back to itself reads as nothing. */
  read<T>(name: string, at: SyntaxNode, read: (value: SyntaxNode) => T | undefined): T | undefined {
    if (!this.table) {
      this.table = new Map();
      for (const [bound, value] of this.collect())
        this.table.set(bound, [...(this.table.get(bound) ?? []), value]);
    }
    const values = this.table.get(name);
    if (!values || this.reading.has(name)) return undefined;
    const before = values.filter((value) => value.startIndex < at.startIndex);
    const value = before.at(-1) ?? values[0];
    if (!value) return undefined;
    this.reading.add(name);
    try {
      return read(value);
    } finally {
      this.reading.delete(name);
    }
  }
}

/** Pieces joined, adjacent text merged. */
export function joinPieces(...parts: UrlPiece[][]): UrlPiece[] {
  const joined: UrlPiece[] = [];
  for (const piece of parts.flat()) {
    const last = joined.at(-1);
    if (typeof piece === 'string' && typeof last === 'string') joined[joined.length - 1] = last + piece;
    else if (piece !== '') joined.push(piece);
  }
  return joined;
}

/**
 * A format string (`/users/%d`, `/items/{}`) with its directives replaced by the pieces of the
 * matching argument, or by placeholders where the argument is not a known string.
 */
export function formatPieces(
  template: UrlPiece[],
  directive: RegExp,
  argument: (directive: string, position: number) => UrlPiece[] | undefined,
): UrlPiece[] {
  let position = 0;
  const pieces = template.flatMap((piece): UrlPiece[] => {
    if (typeof piece !== 'string') return [piece];
    const out: UrlPiece[] = [];
    let last = 0;
    for (const match of piece.matchAll(new RegExp(directive.source, 'g'))) {
      const index = match.index ?? 0;
      out.push(piece.slice(last, index));
      out.push(...(argument(match[0], position++) ?? [{ placeholder: match[0] }]));
      last = index + match[0].length;
    }
    out.push(piece.slice(last));
    return out;
  });
  return joinPieces(pieces);
}

/** How a URL reads to a person: placeholders as the code wrote them. */
export function piecesText(pieces: readonly UrlPiece[]): string {
  return pieces.map((piece) => (typeof piece === 'string' ? piece : piece.placeholder)).join('');
}
