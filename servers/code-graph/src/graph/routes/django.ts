import { lineOf, type SyntaxNode } from '../syntax.js';
import type { HttpDetector, HttpFile, RouteHandler } from './http-file.js';
import { stringValue } from './http-syntax.js';
import { joinPath } from './path-patterns.js';
import { pythonArguments } from './python-syntax.js';

const ROUTE_FUNCTIONS = new Set(['path', 're_path', 'url']);

/**
 * Django: `urlpatterns` lists of `path('users/<int:id>/', views.user_detail)` (and `re_path`,
 * `url`), with `include('users.urls')` as a mount and `include([...])` read in place.
 */
export const django: HttpDetector = {
  applies: (_path, source) => source.includes('urlpatterns'),
  detect(file) {
    for (const assignment of file.root.descendantsOfType(['assignment', 'augmented_assignment'])) {
      const value = assignment.childForFieldName('right');
      if (assignment.childForFieldName('left')?.text === 'urlpatterns' && value)
        readPatterns(file, value, '');
    }
  },
};

function readPatterns(file: HttpFile, node: SyntaxNode, prefix: string): void {
  if (node.type === 'list' || node.type === 'tuple' || node.type === 'binary_operator') {
    for (const child of node.namedChildren) readPatterns(file, child, prefix);
    return;
  }
  const callee = node.type === 'call' ? node.childForFieldName('function')?.text.split('.').pop() : undefined;
  if (!callee || !ROUTE_FUNCTIONS.has(callee) || !file.claim(node)) return;
  const { positional, keywords } = pythonArguments(node);
  const written = stringValue(file.syntax, positional[0] ?? keywords.get('route'));
  if (written === undefined) return;
  const route = prefix + (callee === 'path' ? written : regexPath(written));
  const view = positional[1] ?? keywords.get('view');
  const included =
    view?.type === 'call' && view.childForFieldName('function')?.text.split('.').pop() === 'include';
  if (view && included) {
    readInclude(file, view, route, lineOf(node));
    return;
  }
  file.addRoute({
    method: 'ANY',
    path: joinPath('', route),
    framework: 'django',
    on: '',
    declaration: node,
    handlers: view ? viewHandler(view) : [],
  });
}

/** `include('users.urls')` mounts that module's urlpatterns; `include([...])` lists them here. */
function readInclude(file: HttpFile, include: SyntaxNode, route: string, line: number): void {
  let [target] = pythonArguments(include).positional;
  if (target?.type === 'tuple') target = target.namedChild(0) ?? undefined;
  if (!target) return;
  const module = stringValue(file.syntax, target);
  if (module !== undefined) file.addMount({ on: '', prefix: joinPath('', route), target: { module }, line });
  else if (target.type === 'list') readPatterns(file, target, route);
}

/** `views.user_detail`, or the class of `UserView.as_view()`. */
function viewHandler(view: SyntaxNode): RouteHandler[] {
  const callee = view.type === 'call' ? view.childForFieldName('function') : null;
  if (callee?.type === 'attribute' && callee.childForFieldName('attribute')?.text === 'as_view') {
    const owner = callee.childForFieldName('object');
    return owner ? [{ reference: owner }] : [];
  }
  return view.type === 'identifier' || view.type === 'attribute' ? [{ reference: view }] : [];
}

/** `^articles/(?P<year>[0-9]{4})/$` → `articles/<year>/`: named groups are parameters, other groups too. */
export function regexPath(pattern: string): string {
  return pattern
    .replace(/^\^/, '')
    .replace(/\$$/, '')
    .replace(/\(\?P<(\w+)>(?:[^()]|\([^()]*\))*\)/g, '<$1>')
    .replace(/\((?:[^()]|\([^()]*\))*\)/g, '<param>')
    .replace(/\.\*$/, '<path:rest>')
    .replace(/\\(.)/g, '$1');
}
