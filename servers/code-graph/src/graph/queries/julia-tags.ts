/**
 * Tags for Julia, which tree-sitter-julia does not ship: modules, structs and abstract types,
 * functions in their long and short forms (a signature may carry a return type and a `where`
 * clause), macros and constants; calls, bare or through a module (`Mod.f(x)`).
 */
export const JULIA_TAGS = `
(module_definition name: (identifier) @name) @definition.module

(struct_definition (type_head (identifier) @name)) @definition.struct
(struct_definition (type_head (binary_expression . (identifier) @name))) @definition.struct
(struct_definition (type_head (parametrized_type_expression . (identifier) @name))) @definition.struct
(struct_definition (type_head (binary_expression . (parametrized_type_expression . (identifier) @name)))) @definition.struct
(abstract_definition (type_head (identifier) @name)) @definition.type
(abstract_definition (type_head (binary_expression . (identifier) @name))) @definition.type

(function_definition (signature (call_expression . (identifier) @name))) @definition.function
(function_definition (signature (typed_expression . (call_expression . (identifier) @name)))) @definition.function
(function_definition (signature (where_expression . (call_expression . (identifier) @name)))) @definition.function
(function_definition (signature (where_expression . (typed_expression . (call_expression . (identifier) @name))))) @definition.function
(assignment . (call_expression . (identifier) @name)) @definition.function
(assignment . (typed_expression . (call_expression . (identifier) @name))) @definition.function
(macro_definition (signature (call_expression . (identifier) @name))) @definition.macro

(const_statement (assignment . (identifier) @name)) @definition.constant

(call_expression . (identifier) @name) @reference.call
(call_expression . (field_expression (identifier) @name .)) @reference.call
`;
