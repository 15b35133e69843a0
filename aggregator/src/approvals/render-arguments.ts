const REDACTED = '[redacted]';
const SHOWN_CHARACTERS = 160;

/** Words of a key that name a secret: `apiKey`, `x-auth-token`, `db_password`, `Cookie`. */
const SECRET_KEY_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'secret',
  'token',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'cookie',
  'apikey',
  'privatekey',
  'accesskey',
  'secretkey',
]);

/**
 * Words that make a key about a secret rather than the secret itself (`maxTokens`, `tokenType`,
 * `passwordLength`), so the value is kept. A value that still looks secret is caught by its form.
 */
const ABOUT_A_SECRET_WORDS = new Set(['max', 'min', 'count', 'limit', 'budget', 'length', 'type', 'id']);

/** The words of a key, lower-cased: camelCase, snake_case, kebab-case and dots all split. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function isSecretKey(key: string): boolean {
  const words = keyWords(key);
  const joined = words.flatMap((word, i) => [word, word.replace(/s$/, ''), `${word}${words[i + 1] ?? ''}`]);
  return (
    joined.some((word) => SECRET_KEY_WORDS.has(word)) &&
    !words.some((word) => ABOUT_A_SECRET_WORDS.has(word.replace(/s$/, '')))
  );
}

/** Secrets by their well-known forms, wherever they sit in a string. */
const SECRET_FORMS: { pattern: RegExp; replacement: string }[] = [
  {
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
    replacement: REDACTED,
  },
  // `Authorization: Bearer …`, `Basic …`: the scheme stays, so the reader knows what was sent.
  // The credential must hold a digit, so prose ("basic configuration") is left alone.
  {
    pattern: /\b(Bearer|Basic)\s+(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{8,}/gi,
    replacement: `$1 ${REDACTED}`,
  },
  { pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, replacement: REDACTED },
  { pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g, replacement: REDACTED },
  { pattern: /\bsk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}/g, replacement: REDACTED },
  { pattern: /\b(?:[sr]k|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g, replacement: REDACTED },
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}|\bxapp-[A-Za-z0-9-]{10,}/g, replacement: REDACTED },
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replacement: REDACTED },
  { pattern: /\bAIza[0-9A-Za-z_-]{35}/g, replacement: REDACTED },
  // The password of `scheme://user:password@host`.
  { pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:)[^/\s@]+@/gi, replacement: `$1${REDACTED}@` },
  // A secret named in prose or a command line: `password=hunter2`, `TOKEN: abc`, `--password hunter2`.
  {
    pattern:
      /\b((?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)\s*[=:]\s*)(?!\[redacted\])("[^"]*"|'[^']*'|[^\s,;&"']+)/gi,
    replacement: `$1${REDACTED}`,
  },
  {
    pattern: /(--(?:password|passwd|passphrase|token|secret|api-key|apikey)(?:=|\s+))(?!\[redacted\])(\S+)/gi,
    replacement: `$1${REDACTED}`,
  },
];

/** A run of token characters long enough to be a key, a secret or a hash. */
const TOKEN_LIKE = /[A-Za-z0-9+/_=-]{32,}/g;
const HEX_OR_UUID = /^[0-9a-fA-F-]+$/;
const MIN_BITS_PER_CHARACTER = 3.8;
/** Identifiers and paths are mostly words (`FrontServerTests`); random runs seldom are. */
const MAX_WORDY_SHARE = 0.5;
const WORD = /[A-Z]?[a-z]{3,}/g;

function bitsPerCharacter(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / text.length) * Math.log2(n / text.length);
  return bits;
}

function wordyShare(run: string): number {
  return (run.match(WORD) ?? []).join('').length / run.length;
}

/**
 * A long random-looking run (mixed case and digits, high entropy, few words) is taken for a
 * secret of an unknown kind. Hex runs and UUIDs are kept: in tool arguments they are commit ids
 * and hashes.
 */
function looksRandom(run: string): boolean {
  if (HEX_OR_UUID.test(run)) return false;
  if (!/[a-z]/.test(run) || !/[A-Z]/.test(run) || !/[0-9]/.test(run)) return false;
  return bitsPerCharacter(run) >= MIN_BITS_PER_CHARACTER && wordyShare(run) < MAX_WORDY_SHARE;
}

/** A string with every secret-looking part (tokens, keys, JWTs, private keys…) replaced. */
export function redactSecretText(text: string): string {
  let redacted = text;
  for (const { pattern, replacement } of SECRET_FORMS) redacted = redacted.replace(pattern, replacement);
  return redacted.replace(TOKEN_LIKE, (run) => (looksRandom(run) ? REDACTED : run));
}

/**
 * How deep arguments are kept. Below it a value is replaced by a note: no person reads that
 * deep, and walking arguments nested thousands deep would exhaust the stack and fail the call.
 */
export const MAX_KEPT_DEPTH = 32;

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactSecretText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_KEPT_DEPTH) return `[nested deeper than ${MAX_KEPT_DEPTH} levels, not kept]`;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  return redactEntries(value as Record<string, unknown>, depth + 1);
}

function redactEntries(args: Record<string, unknown>, depth: number): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => [
      key,
      isSecretKey(key) ? REDACTED : redactValue(value, depth),
    ]),
  );
}

/**
 * Arguments as they may be stored and shown: values under secret-looking keys replaced, and
 * secret-looking strings replaced wherever they are, down to MAX_KEPT_DEPTH.
 */
export function redactArguments(args: Record<string, unknown>): Record<string, unknown> {
  return redactEntries(args, 0);
}

function shown(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  if (text.length <= SHOWN_CHARACTERS) return text;
  return `${text.slice(0, SHOWN_CHARACTERS)}… (${text.length.toLocaleString('en-US')} characters)`;
}

/** One line per argument, long values cut, so a person can judge a call at a glance. */
export function renderArguments(args: Record<string, unknown>): string {
  const entries = Object.entries(redactArguments(args));
  if (entries.length === 0) return '  (no arguments)';
  return entries.map(([key, value]) => `  ${key}: ${shown(value)}`).join('\n');
}
