import type { ImportFact } from './facts.js';
import { lineOf, type SyntaxNode } from './syntax.js';

/** An `import` statement's module and the names it binds. */
export function importFact(node: SyntaxNode): ImportFact | undefined {
  const source = node.childForFieldName('source');
  if (!source) return undefined;
  const fact: ImportFact = { specifier: stringValue(source), line: lineOf(node), bindings: [] };
  const clause = node.namedChildren.find((child) => child.type === 'import_clause');
  for (const part of clause?.namedChildren ?? []) {
    if (part.type === 'identifier') fact.bindings.push({ imported: 'default', local: part.text });
    else if (part.type === 'namespace_import') {
      const local = part.namedChild(0)?.text;
      if (local) fact.bindings.push({ local });
    } else if (part.type === 'named_imports') {
      for (const specifier of part.namedChildren) {
        const name = specifier.childForFieldName('name')?.text;
        const alias = specifier.childForFieldName('alias')?.text;
        if (name) fact.bindings.push({ imported: name, local: alias ?? name });
      }
    }
  }
  return fact;
}

/** `export … from`: the names passed through, or every name (`export *`). */
export function reexportFact(node: SyntaxNode, specifier: string): ImportFact {
  const fact: ImportFact = { specifier, line: lineOf(node), bindings: [], reexport: true };
  const clause = node.namedChildren.find((child) => child.type === 'export_clause');
  if (!clause) {
    // `export * as ns from` binds a name; `export * from` passes every name through.
    const alias = node.namedChildren.find((child) => child.type === 'namespace_export')?.namedChild(0);
    if (alias) fact.bindings.push({ local: alias.text });
    else fact.star = true;
    return fact;
  }
  for (const specifierNode of clause.namedChildren) {
    const name = specifierNode.childForFieldName('name')?.text;
    const alias = specifierNode.childForFieldName('alias')?.text;
    if (name) fact.bindings.push({ imported: name, local: alias ?? name });
  }
  return fact;
}

/** A string literal's text without its quotes. */
export function stringValue(node: SyntaxNode): string {
  return node.text.replace(/^['"`]|['"`]$/g, '');
}

/** `require('./money')` → `./money` (CommonJS imports). */
export function requiredModule(value: SyntaxNode): string | undefined {
  if (value.type !== 'call_expression') return undefined;
  if (value.childForFieldName('function')?.text !== 'require') return undefined;
  const argument = value.childForFieldName('arguments')?.namedChild(0);
  return argument?.type === 'string' ? stringValue(argument) : undefined;
}

/** The names `const { a, b: c } = require(…)` binds. */
export function requireBindings(pattern: SyntaxNode | null): ImportFact['bindings'] {
  if (!pattern) return [];
  if (pattern.type === 'identifier') return [{ local: pattern.text }];
  if (pattern.type !== 'object_pattern') return [];
  return pattern.namedChildren.flatMap((property) => {
    if (property.type === 'shorthand_property_identifier_pattern')
      return [{ imported: property.text, local: property.text }];
    if (property.type === 'pair_pattern') {
      const key = property.childForFieldName('key')?.text;
      const value = property.childForFieldName('value');
      if (key && value?.type === 'identifier') return [{ imported: key, local: value.text }];
    }
    return [];
  });
}
