import { shannonEntropy } from '@toolmesh/core';
import { findSecrets } from '@toolmesh/core/secrets';

/** A name with one of these words ending a word of it: `API_KEY`, `apiKey`, `db.password`; not `keyboard`. */
const SECRET_NAME = /(key|secret|passw(?:or)?d|pwd|token|credential)s?(?![a-z])/i;
const ASSIGNMENT = /([A-Za-z_][A-Za-z0-9_.-]*)["']?\s*(?::=|=>|[:=])\s*(["'`]?)([^\s"'`]+)\2/g;
const PLACEHOLDER =
  /^(?:\$|<.*>$|%|\{\{)|process\.env|os\.environ|getenv|^x{3,}|\*{3,}|changeme|example|placeholder|your[_-]|dummy|redacted|^(?:null|none|nil|true|false|undefined)$/i;
/** A reference to code (`config.apiKey`, `getToken()`), not a literal value. */
const CODE_REFERENCE = /^[A-Za-z_$][\w$]*(?:\.[\w$]+)*(?:\(.*)?[,;)]*$/;

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

/** A secret in `text` and the line (from 1) it starts on: a known token format, or a line assigning a random-looking value to a secret name. */
export interface SecretInText {
  line: number;
  rule: string;
}

/**
 * Every secret in `text` (lines joined by newlines), the formats found across lines so that a
 * private key block or a wrapped token is seen whole.
 */
export function secretsInText(text: string): SecretInText[] {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const byLine = new Map<number, string>();
  for (const finding of findSecrets(text)) {
    const line = lineStarts.findLastIndex((start) => start <= finding.start) + 1;
    if (!byLine.has(line)) byLine.set(line, finding.format);
  }
  text.split('\n').forEach((line, index) => {
    if (!byLine.has(index + 1) && assignsSecret(line)) {
      byLine.set(index + 1, 'high-entropy value assigned to a secret name');
    }
  });
  return [...byLine].sort(([a], [b]) => a - b).map(([line, rule]) => ({ line, rule }));
}
