import { type FieldText, type QueryPart, tokenize } from '@toolmesh/bm25';

/**
 * How much of a request a tool's name says: the idf-weighted share of the request's own terms
 * (synonyms left out) that the tool's name and its server's name hold, each term counted once
 * at the weight of its phrase. BM25F adds up evidence term by term, so a tool whose long
 * description repeats two of the request's words can beat the tool named for all of them
 * (`merge_pull_request` above `get_pull_request_files` for "github get pull request files");
 * a model's first search names the tool it wants in just those words, and this is the
 * evidence that it did. Only a few candidates are ever asked about, so each tool keeps its
 * name's terms and the index only how many tools' names hold each term.
 */
export class NameCoverage {
  readonly #termsOf = new Map<string, ReadonlySet<string>>();
  /** How many tools' names (with their server's) hold each term. */
  readonly #holders = new Map<string, number>();

  add(name: string, fields: { name: FieldText; server: FieldText }): void {
    this.remove(name);
    const terms = new Set([...termsOf(fields.name), ...termsOf(fields.server)]);
    this.#termsOf.set(name, terms);
    for (const term of terms) this.#holders.set(term, (this.#holders.get(term) ?? 0) + 1);
  }

  remove(name: string): void {
    const terms = this.#termsOf.get(name);
    if (!terms) return;
    this.#termsOf.delete(name);
    for (const term of terms) {
      const holders = this.#holders.get(term)! - 1;
      if (holders === 0) this.#holders.delete(term);
      else this.#holders.set(term, holders);
    }
  }

  /** Each of `names`' share of `request` said by its name, 0 to 1 (a term no name holds counts as the rarest). */
  of(request: readonly QueryPart[], names: Iterable<string>): Map<string, number> {
    const weights = new Map<string, number>();
    for (const { text, weight = 1 } of request) {
      if (!(weight > 0)) continue;
      for (const term of tokenize(text)) weights.set(term, Math.max(weights.get(term) ?? 0, weight));
    }
    const count = this.#termsOf.size;
    const idf = (holders: number) => Math.log(1 + (count - holders + 0.5) / (holders + 0.5));
    const evidence = [...weights].map(([term, weight]) => ({
      term,
      value: weight * idf(this.#holders.get(term) ?? 0),
    }));
    const full = evidence.reduce((sum, { value }) => sum + value, 0);
    const shares = new Map<string, number>();
    if (!(full > 0)) return shares;
    for (const name of names) {
      const terms = this.#termsOf.get(name);
      if (!terms) continue;
      let said = 0;
      for (const { term, value } of evidence) if (terms.has(term)) said += value;
      if (said > 0) shares.set(name, said / full);
    }
    return shares;
  }
}

function termsOf(text: FieldText): string[] {
  return typeof text === 'string' ? tokenize(text) : text.flatMap((piece) => tokenize(piece));
}
