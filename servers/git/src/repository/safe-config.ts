/**
 * What makes every git command safe to run in a repository somebody else controls. A
 * repository's config (and the files it includes) can name programs that git starts by itself —
 * an fsmonitor, hooks, filters, merge drivers, pagers, credential helpers, ssh — so a mere
 * `git status` could run code. Each of those settings is overridden on the command line, which
 * git reads last, with a value that runs nothing.
 */
export const NEUTRAL_CONFIG: readonly (readonly [string, string])[] = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  // "cat" is git's own spelling of "no pager"; --no-pager is passed as well.
  ['core.pager', 'cat'],
  // ":" is git's own spelling of "no editor".
  ['core.editor', ':'],
  ['sequence.editor', ':'],
  // An empty program cannot be started, so git fails instead of running anything.
  ['core.sshCommand', ''],
  ['core.gitProxy', ''],
  ['core.askPass', ''],
  // An empty value empties the list of credential helpers.
  ['credential.helper', ''],
  ['protocol.allow', 'never'],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['log.showSignature', 'false'],
  ['merge.verifySignatures', 'false'],
  // Submodules have configs of their own, whose program-valued keys these overrides never name:
  // git must not look inside one (a dirty check runs `git status` there, filters and all), only
  // at the commit its gitlink records.
  ['submodule.recurse', 'false'],
  ['status.submoduleSummary', 'false'],
  ['diff.ignoreSubmodules', 'dirty'],
  // Background maintenance starts other programs (and would run the pre-auto-gc hook).
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
];

/** Settings that would change the output formats the parsers read. */
export const STABLE_OUTPUT_CONFIG: readonly (readonly [string, string])[] = [
  ['color.ui', 'false'],
  ['core.quotePath', 'false'],
  ['diff.noprefix', 'false'],
  ['diff.mnemonicPrefix', 'false'],
  ['diff.relative', 'false'],
  ['diff.submodule', 'short'],
  ['log.showRoot', 'true'],
  ['status.renames', 'true'],
];

/**
 * Program-valued keys whose names the repository chooses (`filter.<driver>.clean`…): for each
 * such key found in the effective config, the value that neutralises it.
 */
const NAMED_PROGRAM_KEYS: readonly [RegExp, string][] = [
  [/^filter\..+\.(clean|smudge|process)$/i, ''],
  [/^filter\..+\.required$/i, 'false'],
  [/^merge\..+\.driver$/i, ''],
  // Diffs also run with --no-ext-diff and --no-textconv; an empty program makes a command that
  // missed those flags fail instead of running the driver.
  [/^diff\..+\.(command|textconv)$/i, ''],
  [/^credential\..+\.helper$/i, ''],
  [/^protocol\..+\.allow$/i, 'never'],
  // Not a program, but it would send git into a submodule, under that one's config (see
  // submodule-overrides.ts, which does the same for .gitmodules).
  [/^submodule\..+\.ignore$/i, 'dirty'],
];

/** The overrides for the program-valued keys among `names` (the keys of a repository's config). */
export function overridesFor(names: Iterable<string>): [string, string][] {
  const overrides = new Map<string, string>();
  for (const name of names) {
    const rule = NAMED_PROGRAM_KEYS.find(([pattern]) => pattern.test(name));
    // Subsection names are case-sensitive, so the name is kept as git listed it.
    if (rule) overrides.set(name, rule[1]);
  }
  return [...overrides];
}

/**
 * The overrides as GIT_CONFIG_COUNT / GIT_CONFIG_KEY_<n> / GIT_CONFIG_VALUE_<n> (git 2.31+), not
 * as `-c key=value`: a subsection may itself contain "=" (`[filter "a=b"]`), which `-c` would
 * split in the wrong place, leaving that driver in force.
 */
export function configEnvironment(pairs: Iterable<readonly [string, string]>): Record<string, string> {
  const environment: Record<string, string> = {};
  let count = 0;
  for (const [key, value] of pairs) {
    environment[`GIT_CONFIG_KEY_${count}`] = key;
    environment[`GIT_CONFIG_VALUE_${count}`] = value;
    count++;
  }
  environment.GIT_CONFIG_COUNT = String(count);
  return environment;
}
