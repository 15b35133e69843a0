import picomatch from 'picomatch';

/** Files that are secrets by their name, whatever they hold: fs reads none of them, git commits none. */
interface SecretFileKind {
  /** What the file is called in a refusal. */
  kind: string;
  globs: readonly string[];
}

const SECRET_FILE_KINDS: readonly SecretFileKind[] = [
  // The variants and copies count too (`.envrc`, `.env-prod`, `id_rsa.bak`), but not `.envoy.yaml`.
  { kind: 'environment file (.env)', globs: ['**/.env', '**/.env[._-]*', '**/.envrc'] },
  {
    kind: 'private key',
    globs: [
      '**/id_rsa*',
      '**/id_dsa*',
      '**/id_ecdsa*',
      '**/id_ed25519*',
      '**/id_*_sk',
      '**/*.pem',
      '**/*.key',
    ],
  },
  { kind: 'key store', globs: ['**/*.{p12,pfx,keystore,jks,ppk,kdbx}'] },
  {
    kind: 'credentials file',
    globs: [
      '**/.netrc',
      '**/_netrc',
      '**/.pgpass',
      '**/.git-credentials',
      '**/.pypirc',
      '**/.aws/credentials',
      '**/.docker/config.json',
      '**/.kube/config',
    ],
  },
];

/**
 * Templates that sit beside a secret file and hold none: `.env.example`, `server.key.sample`.
 * `.pub` halves of key pairs are public.
 */
const NOT_SECRET_GLOBS: readonly string[] = [
  '**/*.{example,sample,template,dist,default,defaults}',
  '**/*.pub',
];

/**
 * The deny globs for secret files, in the form `PathGuard` takes: a later `!glob` exempts what an
 * earlier glob named.
 */
export const SECRET_FILE_GLOBS: readonly string[] = [
  ...SECRET_FILE_KINDS.flatMap((entry) => entry.globs),
  ...NOT_SECRET_GLOBS.map((glob) => `!${glob}`),
];

let matchers: { kind: string; test: (file: string) => boolean }[] | undefined;

/** What kind of secret a file is by its name (a path relative to a root, forward slashes); undefined when none. */
export function secretFileKind(file: string): string | undefined {
  // Compiled on the first question, not when core loads: most servers never ask it.
  matchers ??= SECRET_FILE_KINDS.map(({ kind, globs }) => ({
    kind,
    test: picomatch([...globs], { dot: true, ignore: [...NOT_SECRET_GLOBS] }),
  }));
  return matchers.find((matcher) => matcher.test(file))?.kind;
}
