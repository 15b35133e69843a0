import type { ImportFact } from './facts.js';
import { lineOf, type SyntaxNode } from './syntax.js';

/** Rust module paths in one file: what its `use` declarations import, and paths as seen from its module. */
export class RustPaths {
  /** Names `use` or `mod` bound at the top of the file, to the path each stands for (`money` → `self::money`). */
  readonly bound = new Map<string, string>();

  /** What a `use` declaration imports, its paths made relative to this file's module: `super::` out of an inline module is `self::`. */
  importsOf(node: SyntaxNode, inline: readonly string[], reexport: boolean): ImportFact[] {
    const argument = node.childForFieldName('argument');
    if (!argument) return [];
    const facts = new Map<string, ImportFact>();
    const add = (path: string[], binding?: { imported?: string; local: string }, star = false) => {
      const specifier = this.absolute(path, inline).join('::');
      if (!specifier) return;
      let fact = facts.get(specifier);
      if (!fact) {
        fact = { specifier, line: lineOf(node), bindings: [] };
        if (reexport) fact.reexport = true;
        facts.set(specifier, fact);
      }
      if (star) fact.star = true;
      if (binding) {
        fact.bindings.push(binding);
        if (inline.length === 0)
          this.bound.set(binding.local, binding.imported ? `${specifier}::${binding.imported}` : specifier);
      }
    };
    const walk = (tree: SyntaxNode, prefix: string[]): void => {
      switch (tree.type) {
        case 'use_wildcard':
          add([...prefix, ...pathOf(tree.namedChild(0))], undefined, true);
          return;
        case 'use_as_clause': {
          const path = [...prefix, ...pathOf(tree.childForFieldName('path'))];
          const alias = tree.childForFieldName('alias')?.text;
          if (alias) this.bind(add, path, alias);
          return;
        }
        case 'scoped_use_list': {
          const path = [...prefix, ...pathOf(tree.childForFieldName('path'))];
          for (const item of tree.childForFieldName('list')?.namedChildren ?? []) walk(item, path);
          return;
        }
        case 'use_list':
          for (const item of tree.namedChildren) walk(item, prefix);
          return;
        case 'self':
          // `use a::b::{self}` binds the module b.
          if (prefix.length > 0) add(prefix, { local: prefix.at(-1) as string });
          return;
        default: {
          const path = [...prefix, ...pathOf(tree)];
          const last = path.at(-1);
          if (last) this.bind(add, path, last);
        }
      }
    };
    walk(argument, []);
    return [...facts.values()];
  }

  /** `a::b::C` binds C from a::b; a path of one name (`use serde;`) binds a crate or module. */
  private bind(
    add: (path: string[], binding?: { imported?: string; local: string }) => void,
    path: string[],
    local: string,
  ): void {
    const last = path.at(-1);
    if (!last) return;
    if (path.length === 1) add(path, { local });
    else add(path.slice(0, -1), { imported: last, local });
  }

  /**
   * A path as seen from this file's module: `crate::…` as written, `self::` and `super::` with
   * the inline modules the walk is in taken into account, and a path that starts with a name
   * `use` or `mod` bound above replaced by what it stands for. Anything else names a crate.
   */
  absolute(path: string[], inline: readonly string[]): string[] {
    const [first, ...rest] = path;
    if (first === undefined) return [];
    if (first === 'crate' || first === '$crate') return ['crate', ...rest];
    if (first === 'self') return ['self', ...inline, ...rest];
    if (first === 'super') {
      let ups = 0;
      while (path[ups] === 'super') ups++;
      const outer = inline.slice(0, Math.max(0, inline.length - ups));
      const left = Math.max(0, ups - inline.length);
      return [...(left > 0 ? Array(left).fill('super') : ['self']), ...outer, ...path.slice(ups)];
    }
    const bound = inline.length === 0 ? this.bound.get(first) : undefined;
    return bound ? [...bound.split('::'), ...rest] : path;
  }
}

/** `crate::money::Money` → crate, money, Money; `super::*`'s path → super. */
export function pathOf(node: SyntaxNode | null | undefined): string[] {
  if (!node) return [];
  if (node.type === 'scoped_identifier' || node.type === 'scoped_type_identifier') {
    return [...pathOf(node.childForFieldName('path')), ...pathOf(node.childForFieldName('name'))];
  }
  return [node.text];
}
