import { shannonEntropy } from '@toolmesh/core';
import { findSecrets } from '@toolmesh/core/secrets';

const REDACTED = '[redacted]';

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

function judgeKey(key: string): boolean {
  const words = keyWords(key);
  const joined = words.flatMap((word, i) => [word, word.replace(/s$/, ''), `${word}${words[i + 1] ?? ''}`]);
  return (
    joined.some((word) => SECRET_KEY_WORDS.has(word)) &&
    !words.some((word) => ABOUT_A_SECRET_WORDS.has(word.replace(/s$/, '')))
  );
}

/**
 * What the audit redacts is judged on every call, and calls repeat themselves: the same keys,
 * the same paths and names. Verdicts are remembered, the oldest forgotten first, so that a
 * repeated value is not scanned by every secret format again. Only texts found to hold nothing
 * to redact are remembered, and only short ones: no secret is kept here.
 */
class Remembered<T> {
  readonly #entries = new Map<string, T>();
  constructor(private readonly most: number) {}

  get(key: string): T | undefined {
    return this.#entries.get(key);
  }

  set(key: string, value: T): void {
    if (this.#entries.size >= this.most) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
    this.#entries.set(key, value);
  }
}

const MOST_REMEMBERED = 1000;
/** Longer texts are rarely sent twice, and scanning them dwarfs a lookup anyway. */
const LONGEST_REMEMBERED_TEXT = 256;
const keyVerdicts = new Remembered<boolean>(MOST_REMEMBERED);
const cleanTexts = new Remembered<true>(MOST_REMEMBERED);

function isSecretKey(key: string): boolean {
  let secret = keyVerdicts.get(key);
  if (secret === undefined) {
    secret = judgeKey(key);
    if (key.length <= LONGEST_REMEMBERED_TEXT) keyVerdicts.set(key, secret);
  }
  return secret;
}

/**
 * Secrets with no format of their own, known by what stands around them: the scheme of an
 * authorization header, the user of a URL, the name in `password=…` or `--token …`. Only the
 * secret part is replaced, so the reader still sees what was sent. Token formats are core's.
 */
const NAMED_SECRETS: { pattern: RegExp; replacement: string }[] = [
  // The credential must hold a digit, so prose ("basic configuration") is left alone.
  {
    pattern: /\b(Bearer|Basic)\s+(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{8,}/gi,
    replacement: `$1 ${REDACTED}`,
  },
  // The password of `scheme://user:password@host`.
  { pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:)[^/\s@]+@/gi, replacement: `$1${REDACTED}@` },
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

/** Characters a token is made of: a format's match is widened to the whole run it sits in. */
const TOKEN_CHARACTER = /[A-Za-z0-9+/=_.-]/;

/**
 * `text` with every secret core knows by its format replaced, each widened to the run of token
 * characters it ends in (so no tail of a secret is left); a finding already holding a
 * replacement was dealt with by NAMED_SECRETS.
 */
function redactFormats(text: string): string {
  const spans: [start: number, stop: number][] = [];
  for (const { start, end } of findSecrets(text)) {
    if (text.slice(start, end).includes(REDACTED)) continue;
    let stop = end;
    while (stop < text.length && TOKEN_CHARACTER.test(text.charAt(stop))) stop++;
    const last = spans.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], stop);
    else spans.push([start, stop]);
  }
  let kept = '';
  let from = 0;
  for (const [start, stop] of spans) {
    kept += `${text.slice(from, start)}${REDACTED}`;
    from = stop;
  }
  return kept + text.slice(from);
}

/** A run of token characters long enough to be a key, a secret or a hash. */
const TOKEN_LIKE = /[A-Za-z0-9+/_=-]{32,}/g;
const HEX_OR_UUID = /^[0-9a-fA-F-]+$/;
const MIN_BITS_PER_CHARACTER = 3.8;
/** Identifiers and paths are mostly words (`FrontServerTests`); random runs seldom are. */
const MAX_WORDY_SHARE = 0.5;
const WORD = /[A-Z]?[a-z]{3,}/g;

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
  return shannonEntropy(run) >= MIN_BITS_PER_CHARACTER && wordyShare(run) < MAX_WORDY_SHARE;
}

/** A string with every secret-looking part (tokens, keys, JWTs, private keys…) replaced. */
export function redactSecretText(text: string): string {
  if (cleanTexts.get(text)) return text;
  let redacted = text;
  for (const { pattern, replacement } of NAMED_SECRETS) redacted = redacted.replace(pattern, replacement);
  redacted = redactFormats(redacted).replace(TOKEN_LIKE, (run) => (looksRandom(run) ? REDACTED : run));
  if (redacted === text && text.length <= LONGEST_REMEMBERED_TEXT) cleanTexts.set(text, true);
  return redacted;
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
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(args)) {
    const value = isSecretKey(key) ? REDACTED : redactValue(args[key], depth);
    // An own `__proto__` key stays a key, as JSON.parse made it, instead of setting the prototype.
    if (key === '__proto__')
      Object.defineProperty(kept, key, { value, enumerable: true, writable: true, configurable: true });
    else kept[key] = value;
  }
  return kept;
}

/**
 * Arguments as they may be stored and shown: values under secret-looking keys replaced, and
 * secret-looking strings replaced wherever they are, down to MAX_KEPT_DEPTH.
 */
export function redactArguments(args: Record<string, unknown>): Record<string, unknown> {
  return redactEntries(args, 0);
}
