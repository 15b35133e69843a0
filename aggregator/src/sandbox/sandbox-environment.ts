/**
 * Variables a sandboxed program gets from the environment it is started from, by exact name: a
 * prefix such as `TOOLMESH_` would let through whatever is ever named with it (a bearer token, a
 * database URL with its password). TOOLMESH_DATA_DIR is the only toolmesh variable a server reads.
 */
const PASSED_NAMES = new Set([
  'PATH',
  'TERM',
  'TZ',
  'TOOLMESH_DATA_DIR',
  // The locale, with the categories POSIX and glibc define.
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_ADDRESS',
  'LC_COLLATE',
  'LC_CTYPE',
  'LC_IDENTIFICATION',
  'LC_MEASUREMENT',
  'LC_MESSAGES',
  'LC_MONETARY',
  'LC_NAME',
  'LC_NUMERIC',
  'LC_PAPER',
  'LC_TELEPHONE',
  'LC_TIME',
]);

export function isPassedIntoSandbox(name: string): boolean {
  return PASSED_NAMES.has(name);
}

/**
 * The whole environment inside a sandbox: the allowlisted variables of `inherited`, then the
 * server's own configured ones (which it asked for by name, secrets included), and a HOME that
 * is private to the sandbox.
 */
export function sandboxEnvironment(options: {
  inherited: NodeJS.ProcessEnv;
  own: Readonly<Record<string, string>>;
  home: string;
}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.inherited)) {
    if (value !== undefined && isPassedIntoSandbox(name)) env[name] = value;
  }
  return { ...env, ...options.own, HOME: options.home };
}
