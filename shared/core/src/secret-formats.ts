import { rules as secretlintRules } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintRuleContext, SecretLintSourceCode } from '@secretlint/types';

/** A secret found in text by its format. The finding holds where it is, never the secret itself. */
export interface SecretFinding {
  /** What the secret is, for a refusal or a note: "GitHub Token", "AWS Access Key ID". */
  format: string;
  /** The secretlint rule that found it, or the format's own name when it is beyond the preset. */
  rule: string;
  start: number;
  end: number;
}

/**
 * Formats that secretlint's recommended preset does not know, each a published token format:
 * a private key from its armour line on (the preset wants a whole block of 100 characters or
 * more, and a cut argument may hold only the start), Google API keys and JSON Web Tokens.
 */
const FORMATS_BEYOND_THE_PRESET: readonly { format: string; pattern: RegExp }[] = [
  {
    format: 'private key',
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)/g,
  },
  { format: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/g },
  { format: 'JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g },
];

/** Options of the preset's rules: the AWS rule looks for access key ids only when asked. */
const RULE_OPTIONS = { enableIDScanRule: true };

/** A rule's English message with every value left out: "found GitHub Token(): " → "GitHub Token". */
const EMPTY_PROPS = new Proxy({}, { get: () => '' });
function formatName(message: string): string {
  return message
    .replace(/^found\s+/i, '')
    .replace(/\(\)/g, '')
    .replace(/[\s:]+$/, '');
}

function sourceOf(content: string): SecretLintSourceCode {
  return {
    hasBOM: false,
    content,
    filePath: undefined,
    physicalFilePath: undefined,
    contentType: 'text',
    ext: '',
    getFilePath: () => undefined,
    getPhysicalFilePath: () => undefined,
  } as unknown as SecretLintSourceCode;
}

/** Where the preset's rules report while `findSecrets` scans one text. */
let findingsOfTheScan: SecretFinding[] = [];

/**
 * The preset's rules, each made once: a rule keeps nothing of one text for the next (its
 * patterns are matched with matchAll, which never moves their lastIndex), and making all of
 * them again for every text was most of what a scan cost, which the audit pays on every call.
 */
let scanners: { file?: (source: SecretLintSourceCode) => unknown }[] | undefined;

function presetScanners(): NonNullable<typeof scanners> {
  scanners ??= secretlintRules.map((rule) => {
    const context = {
      sharedOptions: {},
      createTranslator: (messages: Record<string, { en: (props: unknown) => string }>) => (id: string) => ({
        message: formatName(messages[id]?.en(EMPTY_PROPS) ?? id),
        messageId: id,
        data: undefined,
      }),
      report: ({ message, range }: { message: { message: string }; range: readonly [number, number] }) =>
        findingsOfTheScan.push({
          format: message.message,
          rule: rule.meta.id,
          start: range[0],
          end: range[1],
        }),
      // `secretlint-disable` comments are not honoured: a comment does not make a secret safe to show.
      ignore: () => {},
    } as unknown as SecretLintRuleContext;
    return rule.create(context, RULE_OPTIONS) as NonNullable<typeof scanners>[number];
  });
  return scanners;
}

/**
 * Every secret in `text` that has a known format: secretlint's recommended rules (maintained
 * with the providers' formats), run in place and synchronously, plus the few formats they lack.
 * Findings are sorted by where they start and may overlap.
 */
export function findSecrets(text: string): SecretFinding[] {
  const findings: SecretFinding[] = [];
  const source = sourceOf(text);
  findingsOfTheScan = findings;
  try {
    // The preset's rules report as they scan; its one asynchronous check reads .p12 files, and
    // this source has no file name.
    for (const scanner of presetScanners()) void scanner.file?.(source);
  } finally {
    findingsOfTheScan = [];
  }
  for (const { format, pattern } of FORMATS_BEYOND_THE_PRESET) {
    for (const match of text.matchAll(pattern)) {
      findings.push({ format, rule: format, start: match.index, end: match.index + match[0].length });
    }
  }
  return findings.sort((a, b) => a.start - b.start || b.end - a.end);
}
