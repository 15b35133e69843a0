/**
 * One made-up secret of every format `findSecrets` knows, keyed by the rule that knows it, for
 * tests that check the formats are refused or redacted everywhere. Each is assembled from parts
 * so that no scanner takes this file for a leak.
 */
export interface SecretSample {
  /** The secretlint rule id ("@secretlint/secretlint-rule-github") or, beyond the preset, the format. */
  rule: string;
  /** The secret as it appears in text. */
  text: string;
  /** The part that must never be shown: the whole text, or the password of a URL. */
  secret: string;
}

const ALNUM = 'Zq8xW2mN4bV6cL9kJ3hG5fD7sA1pQ0rTyU5iO3eR7tY2uP4aS6dF8gH1jK3lX9cV';

/** `length` characters of `alphabet`, varied enough to look random. */
function filler(length: number, alphabet = ALNUM): string {
  let text = '';
  for (let i = 0; text.length < length; i++) text += alphabet[(i * 7 + (i >> 3)) % alphabet.length];
  return text;
}

const HEX = '0123456789abcdef';
const preset = (name: string) => `@secretlint/secretlint-rule-${name}`;
// Key material in base64 opens with an ASN.1 sequence ("MI…"), which the preset checks for.
const pemBody = `MII${filler(64 * 3 - 3, `${ALNUM}+/`)}`.replace(/(.{64})/g, '$1\n');
/** A 1Password service account token is base64 of a JSON object; this one's ends in "fQ==". */
function onePasswordToken(): string {
  let secretKey = filler(60);
  const json = () => JSON.stringify({ email: 'ci@1passwordserviceaccounts.lcl', secretKey });
  while (json().length % 3 !== 1) secretKey += 'x';
  return `${'ops_'}${Buffer.from(json()).toString('base64')}`;
}
const whole = (rule: string, text: string): SecretSample => ({ rule, text, secret: text });
const password = 'pw';

export const SECRET_SAMPLES: readonly SecretSample[] = [
  whole(preset('aws'), `${'AKIA'}${filler(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`),
  whole(
    preset('privatekey'),
    `-----BEGIN RSA ${'PRIVATE'} KEY-----\n${pemBody}-----END RSA PRIVATE KEY-----`,
  ),
  whole(preset('npm'), `${'npm_'}${filler(36)}`),
  {
    rule: preset('basicauth'),
    text: `https://ana:${password}${filler(10)}@example.com/x`,
    secret: `${password}${filler(10)}`,
  },
  whole(preset('slack'), `${'xoxb'}-123456789012-1234567890123-${filler(24)}`),
  whole(preset('sendgrid'), `${'SG.'}${filler(22)}.${filler(43)}`),
  whole(preset('shopify'), `${'shpat'}_${filler(32, HEX)}`),
  whole(preset('stripe'), `${'sk_live'}_${filler(24)}`),
  whole(preset('github'), `${'ghp_'}${filler(36)}`),
  whole(preset('gitlab'), `${'glpat'}-${filler(20)}`),
  whole(preset('grafana'), `${'glc_'}${filler(40)}`),
  whole(preset('openai'), `${'sk-proj'}-${filler(74)}${'T3BlbkFJ'}${filler(74)}`),
  whole(preset('anthropic'), `${'sk-ant'}-api03-${filler(93)}AA`),
  whole(preset('groq'), `${'gsk_'}${filler(52)}`),
  whole(
    preset('huggingface'),
    `${'hf_'}${filler(34, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ')}`,
  ),
  whole(preset('linear'), `${'lin_api'}_${filler(40)}`),
  whole(preset('notion'), `${'ntn_'}${filler(11, '0123456789')}${filler(35)}`),
  whole(preset('1password'), onePasswordToken()),
  {
    rule: preset('database-connection-string'),
    text: `postgres://app:${password}${filler(12)}@db.example.com:5432/main`,
    secret: `${password}${filler(12)}`,
  },
  whole(preset('hashicorp-vault'), `${'hvs.'}${filler(95)}`),
  whole(preset('vercel'), `${'vcp_'}${filler(40)}`),
  whole(preset('databricks'), `${'dapi'}${filler(32, HEX)}`),
  whole(preset('docker'), `${'dckr_pat'}_${filler(27)}`),
  whole(preset('figma'), `${'figd_'}${filler(40)}`),
  whole(preset('cloudflare'), `${'cfut'}_${filler(40)}${filler(8, HEX)}`),
  whole(preset('tailscale'), `${'tskey'}-auth-${filler(12)}-${filler(30)}`),
  whole('private key', `-----BEGIN ${'OPENSSH'} PRIVATE KEY-----`),
  whole('Google API key', `${'AIza'}${filler(35)}`),
  whole('JSON Web Token', `${'eyJ'}hbGciOiJIUzI1NiJ9.${'eyJ'}zdWIiOiIxMjM0NTY3ODkwIn0.${filler(43)}`),
];
