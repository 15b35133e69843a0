/** Part of a query whose terms count `weight` times as much as a plain query's (default 1). */
export interface QueryPart {
  text: string;
  weight?: number;
}

/** One way of saying a query term: its own term, or an expansion of one or more terms. */
export interface Alternative {
  /** The numbers of its terms that some document holds. */
  terms: number[];
  weight: number;
}

/** What a query asks for once: the alternatives that stand for one term or phrase, and how much it counts. */
export interface Concept {
  alternatives: Alternative[];
  weight: number;
  /** Whether the first alternative is the query's own term. */
  own: boolean;
}

/** What turning a query into concepts needs from its index. */
export interface ConceptSource {
  tokenize(text: string): string[];
  /** The number of `term` when some document holds it. */
  held(term: string): number | undefined;
  expand?: ((term: string) => readonly (string | QueryPart)[]) | undefined;
  expansionWeight: number;
  /** Told of each query term that neither it nor any expansion of it is held, with its weight. */
  unmatched?: (term: string, weight: number) => void;
}

/**
 * The concepts of a query: each distinct term with its expansions, then each pair of
 * adjacent terms that has expansions of its own, part by part. A term met in several parts
 * counts as much as in the heaviest; a part of weight 0 or less is left out.
 */
export function queryConcepts(query: string | readonly QueryPart[], source: ConceptSource): Concept[] {
  const parts = typeof query === 'string' ? [{ text: query }] : query;
  const concepts: Concept[] = [];
  const byTerm = new Map<string, Concept>();
  for (const part of parts) {
    const weight = part.weight ?? 1;
    if (!(weight > 0)) continue;
    const terms = source.tokenize(part.text);
    for (const term of terms) {
      const seen = byTerm.get(term);
      if (seen) {
        seen.weight = Math.max(seen.weight, weight);
        continue;
      }
      const alternatives = alternativesOf(term, [term], source);
      if (alternatives.length === 0) source.unmatched?.(term, weight);
      const concept = { alternatives, weight, own: source.held(term) !== undefined };
      byTerm.set(term, concept);
      concepts.push(concept);
    }
    for (let at = 1; at < terms.length; at++) {
      const alternatives = alternativesOf(`${terms[at - 1]} ${terms[at]}`, [], source);
      if (alternatives.length > 0) concepts.push({ alternatives, weight, own: false });
    }
  }
  return withoutRepeats(concepts);
}

/** The alternatives for `key`: its own terms at full weight when given, then its expansions. */
function alternativesOf(key: string, own: string[], source: ConceptSource): Alternative[] {
  const alternatives: Alternative[] = [];
  const spellings = new Set<string>();
  const add = (terms: string[], weight: number) => {
    const spelling = terms.join(' ');
    if (terms.length === 0 || spellings.has(spelling)) return;
    spellings.add(spelling);
    const held = terms.flatMap((term) => source.held(term) ?? []);
    if (held.length > 0) alternatives.push({ terms: held, weight });
  };
  add(own, 1);
  for (const expansion of source.expand?.(key) ?? []) {
    if (typeof expansion === 'string') add(source.tokenize(expansion), source.expansionWeight);
    else add(source.tokenize(expansion.text), expansion.weight ?? source.expansionWeight);
  }
  return alternatives;
}

/**
 * A query term that is also another term's synonym ("create new …") is one concept, not
 * two: its own concept goes, and the one that names it counts it as its own term.
 */
function withoutRepeats(concepts: Concept[]): Concept[] {
  const kept: Concept[] = [];
  for (const concept of concepts) {
    const own = concept.own ? concept.alternatives[0] : undefined;
    let elsewhere: { concept: Concept; alternative: Alternative } | undefined;
    if (own?.terms.length === 1) {
      for (const other of kept) {
        const alternative = other.alternatives.find(
          (candidate) => candidate.terms.length === 1 && candidate.terms[0] === own.terms[0],
        );
        if (alternative) {
          elsewhere = { concept: other, alternative };
          break;
        }
      }
    }
    if (elsewhere) {
      const share = Math.min(1, concept.weight / elsewhere.concept.weight);
      elsewhere.alternative.weight = Math.max(elsewhere.alternative.weight, share);
    } else if (concept.alternatives.length > 0) kept.push(concept);
  }
  return kept;
}
