import type { UrlPiece } from '../facts.js';

/**
 * One step of a path, once every framework's spelling is set aside: fixed text, a parameter
 * (`:id`, `{id}`, `<int:id>`, `[id]`, or a client's `${id}`), or a catch-all for the rest
 * (`*`, `{p:path}`, `<path:p>`, `[...slug]`; `[[...slug]]` also matches nothing).
 */
export type Segment =
  | { kind: 'literal'; text: string }
  | { kind: 'param' }
  | { kind: 'rest'; optional: boolean };

const OPTIONAL_REST = /^(\[\[\.\.\.[^\]]+\]\]|:\w+\*)$/;
const REST = /^(\*\w*|:\w+\+|\{\*\w*\}|\{\w+:path\}|<path:\w+>|\[\.\.\.[^\]]+\]|\(\.\*\))$/;
const PARAM = /^:|[{<[]|\(/;

/** A route's declared path as segments; a trailing slash or a doubled one does not count. */
export function routeSegments(path: string): Segment[] {
  return path
    .split('/')
    .filter(Boolean)
    .map((part): Segment => {
      if (OPTIONAL_REST.test(part)) return { kind: 'rest', optional: true };
      if (REST.test(part)) return { kind: 'rest', optional: false };
      return PARAM.test(part) ? { kind: 'param' } : { kind: 'literal', text: part };
    });
}

/** Joins a mount or router prefix and a path the way frameworks do: one slash between them. */
export function joinPath(prefix: string, path: string): string {
  const head = prefix.replace(/\/+$/, '');
  const tail = path.replace(/^\/+/, '');
  if (!tail) return head.startsWith('/') ? head : `/${head}`;
  const joined = `${head}/${tail}`;
  return joined.startsWith('/') ? joined : `/${joined}`;
}

const HOLE = '\u0000';

export interface ClientPath {
  segments: Segment[];
  /** Whether a placeholder is left in the path once the base URL is stripped. */
  placeholders: boolean;
}

/**
 * The path a client URL asks for: scheme and host stripped, and a base URL the code computes
 * (`${API}/users`) too, as is the query. Undefined when nothing of a path is left to read
 * (`fetch(url)` with `url` unknown).
 */
export function clientPath(url: readonly UrlPiece[]): ClientPath | undefined {
  let text = url.map((piece) => (typeof piece === 'string' ? piece : HOLE)).join('');
  text = text.replace(/^[a-z][a-z\d+.-]*:\/\/[^/]*/i, '');
  if (text.startsWith(HOLE)) {
    const slash = text.indexOf('/');
    if (slash < 0) return undefined;
    text = text.slice(slash);
  }
  text = text.replace(/[?#].*$/s, '');
  if (text.startsWith('//')) text = text.replace(/^\/\/[^/]*/, '');
  if (!text.startsWith('/') && text !== '') {
    // `api.get('users')` against a base URL: relative to it.
    text = `/${text}`;
  }
  const parts = text.split('/').filter(Boolean);
  return {
    segments: parts.map((part) =>
      part.includes(HOLE) ? { kind: 'param' } : { kind: 'literal', text: part },
    ),
    placeholders: parts.some((part) => part.includes(HOLE)),
  };
}

export interface PathMatch {
  /** How specific the route is for this path: fixed text matched scores most, a catch-all least. */
  score: number;
  confidence: number;
}

/**
 * Whether a client path can hit a route pattern, and how sure that is: a literal client path
 * (0.95) over one whose placeholders meet parameters (0.8) over one whose placeholder stands
 * where the route has fixed text (0.6); a catch-all takes a tenth off.
 */
export function matchPath(route: readonly Segment[], client: ClientPath): PathMatch | undefined {
  const segments = client.segments;
  let score = 0;
  let weak = false;
  let rest = false;
  let position = 0;
  for (const [index, step] of route.entries()) {
    if (step.kind === 'rest' && index === route.length - 1) {
      const left = segments.length - position;
      if (left < (step.optional ? 0 : 1)) return undefined;
      position = segments.length;
      rest = true;
      break;
    }
    const asked = segments[position++];
    if (!asked) return undefined;
    if (step.kind === 'literal') {
      if (asked.kind === 'literal') {
        if (asked.text !== step.text) return undefined;
        score += 3;
      } else {
        score += 1;
        weak = true;
      }
    } else {
      score += 2;
    }
  }
  if (position !== segments.length) return undefined;
  let confidence = !client.placeholders ? 0.95 : weak ? 0.6 : 0.8;
  if (rest) confidence *= 0.9;
  return { score, confidence };
}
