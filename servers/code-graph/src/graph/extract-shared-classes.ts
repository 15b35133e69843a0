import type { Receiver } from './facts.js';
import { type BuilderScope, fileScope } from './facts-builder.js';

/** The scope of the Java and C# readers, whose methods reach their class's fields by bare name. */
export interface ClassScope extends BuilderScope {
  /** Fields (and C# properties) of the enclosing classes: a bare `rates` in a method is `this.rates`. */
  fields: Set<string>;
  /** Whether what is declared here can be reached from outside: its class's own export flag. */
  visible: boolean;
  /** Inside an interface, where members are public unless marked otherwise. */
  inInterface: boolean;
}

export function classScope(): ClassScope {
  return { ...fileScope(), fields: new Set(), visible: true, inInterface: false };
}

/**
 * What a bare name is as a receiver in Java or C#: a local; a field of the class, declared in it
 * or — when lower-case, as fields are written — inherited from a base; else a class, package or
 * namespace for the resolver to find. At the head of a dotted name (`com.bank.Money`) only a
 * declared field counts, since packages are lower-case too.
 */
export function nameReceiver(name: string, scope: ClassScope, headOfPath = false): Receiver {
  const local = scope.locals.get(name);
  if (local) return local;
  if (scope.classIndex !== undefined) {
    if (scope.fields.has(name) || (!headOfPath && /^[\p{Ll}_]/u.test(name))) return { kind: 'field', name };
  }
  return { kind: 'name', name };
}

/** `a.b` as a receiver: a field of a value whose class is known, or a longer dotted name. */
export function memberReceiver(of: Receiver, field: string): Receiver {
  if (of.kind === 'name') return { kind: 'name', name: `${of.name}.${field}` };
  if (of.kind === 'unknown') return of;
  if (of.kind === 'self') return { kind: 'field', name: field };
  return { kind: 'member', of, name: field };
}
