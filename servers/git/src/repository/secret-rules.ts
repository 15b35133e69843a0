import path from 'node:path';

export interface ContentRule {
  /** What the finding is called in a refusal; the matched text itself is never shown. */
  name: string;
  pattern: RegExp;
}

/** Secrets recognised by their published formats. */
export const TOKEN_RULES: readonly ContentRule[] = [
  { name: 'private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  { name: 'AWS access key id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/ },
  { name: 'GitHub token', pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/ },
  { name: 'GitHub fine-grained token', pattern: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/ },
  { name: 'GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  { name: 'Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  {
    name: 'Slack webhook',
    pattern: /https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]+/,
  },
  { name: 'Stripe live key', pattern: /\b(?:sk|rk)_live_[A-Za-z0-9]{20,}/ },
  { name: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/ },
  { name: 'npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { name: 'npm auth token', pattern: /_authToken\s*=\s*(?!\$\{)[^\s]{8,}/ },
  { name: 'OpenAI API key', pattern: /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}/ },
  { name: 'Anthropic API key', pattern: /\bsk-ant-[A-Za-z0-9_-]{32,}/ },
  { name: 'SendGrid API key', pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/ },
];

/** A name with one of these words ending a word of it: `API_KEY`, `apiKey`, `db.password`; not `keyboard`. */
const SECRET_NAME = /(key|secret|passw(?:or)?d|pwd|token|credential)s?(?![a-z])/i;
const ASSIGNMENT = /([A-Za-z_][A-Za-z0-9_.-]*)["']?\s*(?::=|=>|[:=])\s*(["'`]?)([^\s"'`]+)\2/g;
const PLACEHOLDER =
  /^(?:\$|<.*>$|%|\{\{)|process\.env|os\.environ|getenv|^x{3,}|\*{3,}|changeme|example|placeholder|your[_-]|dummy|redacted|^(?:null|none|nil|true|false|undefined)$/i;
/** A reference to code (`config.apiKey`, `getToken()`), not a literal value. */
const CODE_REFERENCE = /^[A-Za-z_$][\w$]*(?:\.[\w$]+)*(?:\(.*)?[,;)]*$/;

/** Bits per character of `value`'s character distribution. */
export function shannonEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let entropy = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    entropy -= p * Math.log2(p);
  }
  return entropy;
}

/**
 * Whether a line assigns a random-looking literal to a secret-sounding name (`API_KEY=…`,
 * `"password": "…"`): at least 16 characters, letters and digits, and 3.5 bits of entropy per
 * character, or 8 characters and 2.5 bits for passwords; never a placeholder or a reference to code.
 */
export function assignsSecret(line: string): boolean {
  for (const match of line.matchAll(ASSIGNMENT)) {
    const [, name, quote, value] = match as unknown as [string, string, string, string];
    const kind = SECRET_NAME.exec(name)?.[1]?.toLowerCase();
    if (!kind || PLACEHOLDER.test(value)) continue;
    if (!quote && CODE_REFERENCE.test(value)) continue;
    const password = kind.startsWith('pass') || kind === 'pwd';
    // Generated keys and tokens mix letters and digits; "settings.page.title" does not.
    if (!password && !(/\d/.test(value) && /[A-Za-z]/.test(value))) continue;
    const [minimumLength, minimumEntropy] = password ? [8, 2.5] : [16, 3.5];
    if (value.length >= minimumLength && shannonEntropy(value) >= minimumEntropy) return true;
  }
  return false;
}

/** Environment files kept out of commits; their `.example`-style templates are fine. */
const ENV_FILE = /^\.env(?:\..+)?$/;
const ENV_TEMPLATE = /\.(?:example|sample|template|dist|defaults?)$/;
const KEY_FILES = new Set([
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  '.netrc',
  '_netrc',
  '.pgpass',
  '.git-credentials',
]);
const KEY_EXTENSIONS = new Set(['.p12', '.pfx', '.keystore', '.jks', '.ppk']);

/** Why a file must not be committed whatever it holds, by its name; undefined when its name is fine. */
export function secretFileKind(file: string): string | undefined {
  const name = path.posix.basename(file);
  if (ENV_FILE.test(name) && !ENV_TEMPLATE.test(name)) return 'environment file (.env)';
  if (KEY_FILES.has(name)) return 'private key or credentials file';
  if (KEY_EXTENSIONS.has(path.posix.extname(name).toLowerCase())) return 'key store';
  if (file.endsWith('.aws/credentials')) return 'AWS credentials file';
  return undefined;
}

/** The rule a line breaks, if any. */
export function secretInLine(line: string): string | undefined {
  for (const rule of TOKEN_RULES) if (rule.pattern.test(line)) return rule.name;
  return assignsSecret(line) ? 'high-entropy value assigned to a secret name' : undefined;
}
