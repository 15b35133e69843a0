import type { FileFacts } from './facts.js';
import { type BuilderScope, FactsBuilder, fileScope } from './facts-builder.js';
import { lineOf, type SyntaxNode, type SyntaxTree } from './syntax.js';

const SOURCE_COMMANDS = new Set(['source', '.']);
/**
 * How scripts say "the folder I am in" before a path they source: `$(dirname "$0")`,
 * `"${BASH_SOURCE%/*}"`, `$SCRIPT_DIR`, `${DIR}`. Whatever expansion leads the path is taken to
 * mean that; a path with an expansion further in cannot be known from the syntax.
 */
const LEADING_EXPANSION = /^(\$\([^)]*\)|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*)(?=\/)/;

/** Reads Bash trees: functions, `source` / `.` of other scripts, and commands run. */
export function extractBash(tree: SyntaxTree): FileFacts {
  return new BashReader().read(tree.rootNode);
}

class BashReader {
  private readonly builder = new FactsBuilder();

  read(root: SyntaxNode): FileFacts {
    this.visitChildren(root, fileScope());
    return this.builder.facts;
  }

  private visitChildren(node: SyntaxNode, scope: BuilderScope): void {
    for (const child of node.namedChildren) this.visit(child, scope);
  }

  private visit(node: SyntaxNode, scope: BuilderScope): void {
    this.builder.nested(() => {
      if (node.type === 'function_definition') this.readFunction(node, scope);
      else if (node.type === 'command') this.readCommand(node, scope);
      else if (node.type !== 'comment') this.visitChildren(node, scope);
    });
  }

  private readFunction(node: SyntaxNode, scope: BuilderScope): void {
    const body = node.childForFieldName('body');
    // Every function a script defines can be called by whatever sources it.
    const index = this.builder.declare(
      { name: node.childForFieldName('name')?.text ?? '', kind: 'function', node, body, exported: true },
      scope,
    );
    if (body) this.visit(body, { ...scope, owner: index ?? scope.owner, inFunction: true });
  }

  private readCommand(node: SyntaxNode, scope: BuilderScope): void {
    const name = node.childForFieldName('name');
    const args = node.childrenForFieldName('argument');
    const command = name?.namedChild(0)?.type === 'word' ? name.text : undefined;
    if (command && SOURCE_COMMANDS.has(command)) {
      const path = sourcedPath(args[0]);
      if (path) {
        this.builder.include(path, lineOf(node));
        return;
      }
    } else if (command && /^[\w.:-]+$/.test(command) && !command.includes('/')) {
      this.builder.addCall({ callee: command }, lineOf(node), scope);
    }
    for (const child of node.namedChildren) if (child !== name) this.visit(child, scope);
  }
}

/** `./lib/log.sh`, `"$(dirname "$0")/lib/util.sh"` → `./lib/util.sh`; undefined when the path is computed. */
function sourcedPath(argument: SyntaxNode | undefined): string | undefined {
  if (!argument) return undefined;
  const written = argument.text.replace(/^["']|["']$/g, '').replace(/"/g, '');
  const path = written.replace(LEADING_EXPANSION, '.');
  if (!path || /[$`*?]/.test(path)) return undefined;
  return /^\.{1,2}\//.test(path) || path.startsWith('/') ? path : `./${path}`;
}
