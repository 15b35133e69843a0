/**
 * Tags for Haskell, which tree-sitter-haskell does not ship: the module (spanning the whole file,
 * so everything nests in it), functions and bindings, data types, newtypes, synonyms and type
 * classes, applications as calls and type constructors as type references. A Haddock comment
 * above a definition's type signature documents it.
 */
export const HASKELL_TAGS = `
(haskell (header module: (module) @name)) @definition.module

((haddock) @doc . (signature) . (function name: (variable) @name) @definition.function)
((haddock) @doc . (function name: (variable) @name) @definition.function)
(function name: (variable) @name) @definition.function
(bind name: (variable) @name) @definition.function

(data_type name: (name) @name) @definition.type
(newtype name: (name) @name) @definition.type
(type_synomym name: (name) @name) @definition.type
(class name: (name) @name) @definition.interface

(apply function: (variable) @name) @reference.call
(apply function: (qualified id: (variable) @name)) @reference.call
(infix operator: (infix_id (variable) @name)) @reference.call

(signature type: (_ (name) @name @reference.type))
`;
