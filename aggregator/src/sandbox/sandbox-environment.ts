/** Variables a sandboxed program gets from the environment it is started from. */
const PASSED_NAMES = new Set(['PATH', 'LANG', 'LANGUAGE', 'TZ', 'TERM']);
const PASSED_PREFIXES = ['LC_', 'TOOLMESH_'];

/**
 * A toolmesh variable that looks like it holds a credential stays out even though its prefix
 * is allowed: tokens for toolmesh's own HTTP front are no business of a server's.
 */
const SECRET_LOOKING = /TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API_?KEY|PRIVATE/i;

export function isPassedIntoSandbox(name: string): boolean {
  if (PASSED_NAMES.has(name)) return true;
  if (!PASSED_PREFIXES.some((prefix) => name.startsWith(prefix))) return false;
  return !(name.startsWith('TOOLMESH_') && SECRET_LOOKING.test(name));
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
