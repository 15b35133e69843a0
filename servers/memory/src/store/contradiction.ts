/**
 * Explainable contradiction rules between two short statements about the same subject:
 * one negates the other, they use opposite words, or they give the subject different values
 * (numbers, ports, versions, days, months). Each finding says which rule fired and on what words.
 */

const NEGATIONS = new Set(['not', 'no', 'never', 'none', 'nobody', 'nothing', 'neither', 'nor', 'without']);

const STOPWORDS = new Set(
  'a an and are as at be been being by can could do does did for from had has have in into is it its of on or our over should so than that the their them then there these they this to too us was we were what when where which while who will with would you your all any each every must may might shall also only just very via per'.split(
    ' ',
  ),
);

const OPPOSITES: [string, string][] = [
  ['enable', 'disable'],
  ['enabled', 'disabled'],
  ['allow', 'deny'],
  ['allow', 'forbid'],
  ['allowed', 'forbidden'],
  ['allowed', 'denied'],
  ['permitted', 'prohibited'],
  ['always', 'never'],
  ['true', 'false'],
  ['open', 'closed'],
  ['public', 'private'],
  ['sync', 'async'],
  ['synchronous', 'asynchronous'],
  ['required', 'optional'],
  ['mandatory', 'optional'],
  ['increase', 'decrease'],
  ['before', 'after'],
  ['include', 'exclude'],
  ['accept', 'reject'],
  ['start', 'stop'],
  ['success', 'failure'],
  ['succeed', 'fail'],
  ['pass', 'fail'],
  ['internal', 'external'],
  ['encrypted', 'unencrypted'],
  ['encrypted', 'plaintext'],
  ['supported', 'unsupported'],
  ['stable', 'unstable'],
  ['online', 'offline'],
  ['active', 'inactive'],
  ['ascending', 'descending'],
  ['minimum', 'maximum'],
  ['higher', 'lower'],
  ['faster', 'slower'],
  ['more', 'fewer'],
  ['manual', 'automatic'],
  ['manually', 'automatically'],
  ['blocking', 'nonblocking'],
  ['safe', 'unsafe'],
  ['secure', 'insecure'],
  ['valid', 'invalid'],
  ['mutable', 'immutable'],
  ['upper', 'lower'],
  ['uppercase', 'lowercase'],
  ['deprecated', 'recommended'],
  ['weekdays', 'weekends'],
  ['allowlist', 'blocklist'],
  ['whitelist', 'blacklist'],
];

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** A light suffix stripper: enough for "deploys"/"deploy", "Fridays"/"Friday", "listens"/"listen". */
export function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed') && !word.endsWith('eed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us'))
    return word.slice(0, -1);
  return word;
}

/** Each word's opposites, by stem ("allow" is the opposite of "deny", "forbid" and "forbidden"). */
const OPPOSITE_OF = new Map<string, Set<string>>();
for (const [a, b] of OPPOSITES) {
  for (const [word, opposite] of [
    [stem(a), stem(b)],
    [stem(b), stem(a)],
  ] as const) {
    OPPOSITE_OF.set(word, (OPPOSITE_OF.get(word) ?? new Set()).add(opposite));
  }
}
const DAY_STEMS = new Set(WEEKDAYS.map(stem));
const MONTH_STEMS = new Set(MONTHS.filter((m) => m !== 'may').map(stem));

export interface Statement {
  negated: boolean;
  subject: Set<string>;
  opposites: Set<string>;
  /** Values by type: number, day, month. */
  values: Map<string, Set<string>>;
}

function valueType(token: string): string | undefined {
  if (/^\d+([.:]\d+)*[a-z%]*$/.test(token)) return 'number';
  if (DAY_STEMS.has(token)) return 'day';
  if (MONTH_STEMS.has(token)) return 'month';
  return undefined;
}

export function analyze(text: string): Statement {
  const plain = text
    .toLowerCase()
    .replace(/\bcan(?:'|’)?t\b|\bcannot\b/g, 'can not')
    .replace(/\bwon(?:'|’)t\b/g, 'will not')
    .replace(/n(?:'|’)t\b/g, ' not');
  const tokens = (plain.match(/[\p{L}\p{N}]+(?:[.:][\p{N}]+)*%?/gu) ?? []).map(stem);
  let negations = 0;
  const subject = new Set<string>();
  const opposites = new Set<string>();
  const values = new Map<string, Set<string>>();
  for (const token of tokens) {
    if (NEGATIONS.has(token)) {
      negations++;
      continue;
    }
    const type = valueType(token);
    if (type) {
      if (!values.has(type)) values.set(type, new Set());
      values.get(type)?.add(token);
      continue;
    }
    if (OPPOSITE_OF.has(token)) {
      opposites.add(token);
      continue;
    }
    if (!STOPWORDS.has(token)) subject.add(token);
  }
  return { negated: negations % 2 === 1, subject, opposites, values };
}

export interface Contradiction {
  method: 'negation' | 'antonym' | 'value';
  explanation: string;
}

function sameSubject(a: Statement, b: Statement): string[] | undefined {
  const shared = [...a.subject].filter((word) => b.subject.has(word));
  const union = new Set([...a.subject, ...b.subject]).size;
  if (shared.length === 0 || union === 0) return undefined;
  const jaccard = shared.length / union;
  const containment = shared.length / Math.min(a.subject.size, b.subject.size);
  return jaccard >= 0.5 || (shared.length >= 2 && containment >= 0.75) ? shared : undefined;
}

const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));

/** Why two statements cannot both hold, or undefined when no rule says so. */
export function contradiction(a: Statement, b: Statement): Contradiction | undefined {
  const shared = sameSubject(a, b);
  if (!shared) return undefined;
  const about = `same subject (${shared.join(', ')})`;
  for (const [type, mine] of a.values) {
    const theirs = b.values.get(type);
    if (theirs && !sameSet(mine, theirs) && a.negated === b.negated) {
      return {
        method: 'value',
        explanation: `${about}, different ${type === 'number' ? 'values' : `${type}s`}: ${[...mine].join(', ')} vs ${[...theirs].join(', ')}`,
      };
    }
  }
  const flipped = [...a.opposites].flatMap((word) =>
    [...(OPPOSITE_OF.get(word) ?? [])]
      .filter((opposite) => b.opposites.has(opposite))
      .map((opposite) => [word, opposite] as const),
  );
  const antonym = flipped.length % 2 === 1;
  if (antonym !== (a.negated !== b.negated)) {
    if (antonym) {
      const [word, opposite] = flipped[0] as [string, string];
      return { method: 'antonym', explanation: `${about}, opposite words: "${word}" vs "${opposite}"` };
    }
    const valuesAgree = [...a.values].every(([type, mine]) => {
      const theirs = b.values.get(type);
      return !theirs || sameSet(mine, theirs);
    });
    if (valuesAgree && sameSet(a.opposites, b.opposites)) {
      return { method: 'negation', explanation: `${about}, one of them negated (not/never/no)` };
    }
  }
  return undefined;
}
