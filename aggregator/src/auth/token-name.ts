/** A token's name is the identity servers and the audit see: short, plain, and never a built-in one. */
export const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** Identities toolmesh gives sessions without a token: `anonymous` when authentication is off, `local:<login>` over stdio (no token name has a colon). */
export const RESERVED_TOKEN_NAMES = ['anonymous'];

/** Why `name` cannot name a token, or undefined when it can. */
export function tokenNameProblem(name: string): string | undefined {
  if (!TOKEN_NAME.test(name))
    return `token name "${name}" is not allowed: use 1-64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit`;
  if (RESERVED_TOKEN_NAMES.includes(name))
    return `token name "${name}" is taken by toolmesh itself (the identity of sessions without a token); choose another`;
  return undefined;
}
