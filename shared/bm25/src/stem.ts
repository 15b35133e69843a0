const VOWEL = /[aeiouy]/;

/** Letters that stay doubled when a suffix goes: "pulled" → "pull", "passed" → "pass". */
const KEPT_DOUBLES = new Set(['l', 's', 'z', 'f']);

/**
 * Noun endings mapped back to their verb's stem ("organization" meets "organize",
 * "deployment" meets "deploy"), each with the shortest stem it may leave: "comment" stays.
 */
const NOMINALIZATIONS: ReadonlyArray<readonly [suffix: string, replacement: string, shortest: number]> = [
  ['ization', 'iz', 3],
  ['uration', 'ur', 3],
  ['tion', 't', 3],
  ['ment', '', 4],
];

/**
 * A small, conservative English suffix stemmer: enough to make "issues", "created",
 * "creating" and "creation" meet, without the surprises of a full Porter stemmer.
 * Every rule leaves a stem of at least three letters that still holds a vowel, so
 * "string", "thing" and "need" survive, and a final "e" goes so "create" meets "created".
 */
export function stem(word: string): string {
  if (word.length < 3 || !/^[a-z]+$/.test(word)) return word;
  const base = nominal(participle(singular(word)));
  return base.length > 3 && base.endsWith('e') ? base.slice(0, -1) : base;
}

function singular(word: string): string {
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (/(?:ch|sh|x|z)es$/.test(word) && word.length > 4) return word.slice(0, -2);
  if (word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

function participle(word: string): string {
  if (word.endsWith('ied') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('eed')) return word;
  for (const suffix of ['ing', 'ed']) {
    if (!word.endsWith(suffix)) continue;
    const base = word.slice(0, -suffix.length);
    if (base.length >= 3 && VOWEL.test(base)) return undoubled(base);
  }
  return word;
}

function nominal(word: string): string {
  for (const [suffix, replacement, shortest] of NOMINALIZATIONS) {
    if (word.endsWith(suffix) && word.length - suffix.length >= shortest) {
      return word.slice(0, -suffix.length) + replacement;
    }
  }
  return word;
}

function undoubled(base: string): string {
  const last = base.at(-1)!;
  if (base.length > 3 && last === base.at(-2) && !VOWEL.test(last) && !KEPT_DOUBLES.has(last)) {
    return base.slice(0, -1);
  }
  return base;
}
