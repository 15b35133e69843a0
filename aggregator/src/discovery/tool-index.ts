import { Bm25Index, identifierWords, type QueryPart, tokenize } from '@toolmesh/bm25';
import type { IndexedTool } from './indexed-tool.js';
import type { LearnedAssociations } from './learned-associations.js';
import { NameCoverage } from './name-coverage.js';
import { parseToolQuery } from './query-syntax.js';
import { asksToChange, asksToFindOut, changesThings, onlyReads } from './read-intent.js';
import { rewriteQuery, withoutValues } from './rewrite-query.js';
import { synonymsOf } from './synonyms.js';
import { tellingPart } from './telling-part.js';
import { serverText, type ToolField, toolFields } from './tool-fields.js';
import { termExpansions } from './verb-senses.js';

export interface ToolHit {
  name: string;
  score: number;
}

/** A search with what a model needs to search better when it went badly. */
export interface ToolSearch {
  hits: ToolHit[];
  /** Said when the query was too long to read whole: what was read and what was not. */
  ignored?: string;
  /** What of the query was read (all of it, unless `ignored` says otherwise). */
  read: string;
  /** The query's words that no tool uses, not even as a synonym. */
  unmatched: string[];
  /** The share of the query's full score (see `QueryReach`) that the best match of its words reaches, 0 to 1. */
  explained: number;
  /**
   * The best hit explains too little of the query to be trusted (see `WEAK_SHARE`); also
   * true when nothing matched.
   */
  weak: boolean;
  /** When weak: the servers whose tools' words come closest to the query, closest first. */
  closestServers: string[];
  /** The query's terms as learning from use keeps them: no literal values, no numbers. */
  terms: string[];
}

export interface ToolIndexOptions {
  /** What use has taught, when learning is on: it lifts the tools a query's terms led to before. */
  learned?: () => LearnedAssociations | undefined;
}

const FIELD_WEIGHTS: Record<ToolField, number> = {
  name: 3,
  title: 2,
  description: 1,
  parameterNames: 0.5,
  parameterText: 0.3,
  server: 2,
};

/** A synonym counts for less than the word the request used. */
const SYNONYM_WEIGHT = 0.7;

/**
 * How much naming a server lifts its tools. Within the tool index a big server's name is a
 * common word, so it weighs little next to any rare word; scored among servers instead,
 * "in Linear" or "on Heroku" counts as the strong hint it is.
 */
const SERVER_MENTION_WEIGHT = 2;

/**
 * How far a question pushes down tools that change things, as a share of the best score: a
 * request that asks what, which or who wants a tool that reads, though both match its words.
 */
const QUESTION_CHANGE_PENALTY = 0.2;
/**
 * How many hits beyond the limit a question or an order re-ranks, so a tool that reads (or
 * changes) can climb into it.
 */
const INTENT_RERANK_DEPTH = 20;
/**
 * How far an order to change something pushes down tools that only read, as a share of the
 * best score: "set the Status property on this page" wants `patch-page`, not the sibling that
 * retrieves a page property. Chosen on the tuned half of the development set in both phrasings
 * (0.1 … 0.5 all gain there; 0.2 mirrors the question's penalty), see docs/aggregator.md.
 */
const CHANGE_READ_PENALTY = 0.2;

/**
 * Below this share of the query's full score (see `QueryReach`), the best hit is weak: it
 * explains too little of the request to be called without a second search. Chosen on the
 * tuned half of the development set (see discovery-eval.test.ts) and reported on the rest.
 */
export const WEAK_SHARE = 0.15;
/**
 * How much a tool the query's terms led sessions to before is lifted, as a share of the best
 * score, at full pull (every term led to it, often): a little, so words still decide.
 */
export const LEARNED_LIFT = 0.5;
/**
 * How much a tool is lifted, as a share of the best score, when its name and server's name hold
 * every term of the request (see `NameCoverage`); a share of the request, a share of the lift.
 * Chosen on the tuned half of the development set in both phrasings (0.1 … 1; 0.5 the best
 * there without losing a person-phrased request), see docs/aggregator.md.
 */
const NAME_COVERAGE_LIFT = 0.5;
/** How deep the name lift reorders: the candidates a search lists (schemas, then one line each). */
const NAME_COVERAGE_DEPTH = 15;
/** How many servers a weak search names as closest. */
const CLOSEST_SERVERS = 3;
/** How deep a weak search looks to find the closest servers. */
const CLOSEST_DEPTH = 30;

/**
 * Ranks the registry's tools for a request written by a model or a person: BM25F over each
 * tool's name, title, description, parameters and server, with synonyms, plus a lift for
 * the tools of a server the request names. The request's phrases count less the later they
 * come, and the verb it leads with is read in the senses it has there (see `rewriteQuery`,
 * `termExpansions`). A query that is exactly a tool's name ranks that
 * tool first, and `server:<name>` keeps to the servers whose name contains it.
 */
export class ToolIndex {
  readonly #tools = new Bm25Index<string, ToolField>({ fields: FIELD_WEIGHTS });
  readonly #servers = new Bm25Index<string, 'name'>({ fields: { name: 1 }, b: 0 });
  readonly #nameCoverage = new NameCoverage();
  readonly #entries = new Map<string, IndexedTool>();
  /** Tools that change things, which a question ranks lower. */
  readonly #changing = new Set<string>();
  /** Tools that only read, which an order to change something ranks lower. */
  readonly #reading = new Set<string>();
  readonly #toolsOf = new Map<string, Set<string>>();
  /** Each server's `serverText`, the same for all its tools. */
  readonly #serverTexts = new Map<string, string>();
  /** Each tool's name on its server → the exposed names of the tools of that name. */
  readonly #byOwnName = new Map<string, string[]>();
  readonly #learned: (() => LearnedAssociations | undefined) | undefined;

  constructor(options: ToolIndexOptions = {}) {
    this.#learned = options.learned;
  }

  get size(): number {
    return this.#entries.size;
  }

  upsert(entry: IndexedTool): void {
    this.remove(entry.name);
    this.#entries.set(entry.name, entry);
    const nameWords = identifierWords(entry.tool);
    if (changesThings(entry, nameWords)) this.#changing.add(entry.name);
    if (onlyReads(entry, nameWords)) this.#reading.add(entry.name);
    const siblings = this.#toolsOf.get(entry.server) ?? new Set();
    if (siblings.size === 0) {
      const text = serverText(entry.server);
      this.#serverTexts.set(entry.server, text);
      this.#servers.add(entry.server, { name: text });
    }
    this.#toolsOf.set(entry.server, siblings.add(entry.name));
    const fields = toolFields(entry, nameWords, this.#serverTexts.get(entry.server)!);
    this.#tools.add(entry.name, fields, entry.server);
    this.#nameCoverage.add(entry.name, fields);
    const namesakes = this.#byOwnName.get(entry.tool);
    if (namesakes) namesakes.push(entry.name);
    else this.#byOwnName.set(entry.tool, [entry.name]);
  }

  remove(name: string): boolean {
    const entry = this.#entries.get(name);
    if (!entry) return false;
    this.#entries.delete(name);
    this.#changing.delete(name);
    this.#reading.delete(name);
    this.#tools.remove(name);
    this.#nameCoverage.remove(name);
    const siblings = this.#toolsOf.get(entry.server)!;
    siblings.delete(name);
    if (siblings.size === 0) {
      this.#toolsOf.delete(entry.server);
      this.#serverTexts.delete(entry.server);
      this.#servers.remove(entry.server);
    }
    const namesakes = this.#byOwnName.get(entry.tool)!.filter((other) => other !== name);
    if (namesakes.length === 0) this.#byOwnName.delete(entry.tool);
    else this.#byOwnName.set(entry.tool, namesakes);
    return true;
  }

  search(query: string, limit = 5): ToolHit[] {
    const { text, ignored } = tellingPart(query);
    // A query of nothing but pasted values asks for nothing; an empty one lists every tool.
    return text === '' && ignored ? [] : this.#rank(text, limit).hits;
  }

  /** `search`, with what a model needs to search better when it went badly (see `ToolSearch`). */
  find(query: string, limit = 5): ToolSearch {
    const { text, ignored } = tellingPart(query);
    if (text === '' && ignored)
      return {
        hits: [],
        ignored,
        read: '',
        unmatched: [],
        explained: 0,
        weak: true,
        closestServers: [],
        terms: [],
      };
    const { hits, wordScore, request, expand } = this.#rank(text, Math.max(limit, CLOSEST_DEPTH));
    const { fullScore, unmatched } = request
      ? this.#tools.reach(request, { expand, expansionWeight: SYNONYM_WEIGHT })
      : { fullScore: 0, unmatched: [] };
    const explained = request === undefined ? 1 : Math.min(1, wordScore / fullScore || 0);
    const weak = explained < WEAK_SHARE;
    const unmatchedTerms = new Set(unmatched);
    const unmatchedWords = [
      ...new Set(
        text
          .split(/\s+/)
          .filter((word) => {
            const terms = tokenize(word);
            return terms.length > 0 && terms.every((term) => unmatchedTerms.has(term));
          })
          .map((word) => word.replace(/^\W+|\W+$/g, '')),
      ),
    ];
    return {
      hits: hits.slice(0, limit),
      ...(ignored && { ignored }),
      read: text,
      unmatched: unmatchedWords,
      explained,
      weak,
      closestServers: weak ? this.#closestServers(hits) : [],
      terms: request ? learningTerms(parseToolQuery(text).text) : [],
    };
  }

  /** The servers of the best hits, by the sum of their tools' scores among them. */
  #closestServers(hits: ToolHit[]): string[] {
    const totals = new Map<string, number>();
    for (const { name, score } of hits) {
      const server = this.#entries.get(name)!.server;
      totals.set(server, (totals.get(server) ?? 0) + score);
    }
    return [...totals]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, CLOSEST_SERVERS)
      .map(([server]) => server);
  }

  /** The ranked hits for a query already cut to its telling part, with the request as searched. */
  #rank(
    query: string,
    limit: number,
  ): {
    hits: ToolHit[];
    /** The best score the query's words earn a tool, before any re-ranking lifts one. */
    wordScore: number;
    request?: QueryPart[];
    expand?: (term: string) => readonly string[];
  } {
    const { text } = parseToolQuery(query);
    const accept = this.accepts(query);
    if (text === '') return { hits: this.#all(accept).slice(0, limit), wordScore: 0 };
    const named = new Set([...(this.#entries.has(text) ? [text] : []), ...(this.#byOwnName.get(text) ?? [])]);
    const exact = [...named].filter((name) => accept?.(name) ?? true).sort();
    const request = rewriteQuery(text);
    const expand = termExpansions(text);
    const words = request.map((part) => part.text).join(' ');
    const intent = asksToFindOut(text)
      ? { pushed: this.#changing, share: QUESTION_CHANGE_PENALTY }
      : asksToChange(text)
        ? { pushed: this.#reading, share: CHANGE_READ_PENALTY }
        : undefined;
    const found = this.#tools
      .search(request, {
        limit: Math.max(limit, NAME_COVERAGE_DEPTH) + exact.length + (intent ? INTENT_RERANK_DEPTH : 0),
        expand,
        expansionWeight: SYNONYM_WEIGHT,
        ...(accept && { filter: accept }),
        groupBoost: this.#mentionLift(words),
      })
      .map(({ id, score }) => ({ name: id, score }));
    const lifted = this.#namesLifted(found, request);
    const read = intent ? pushedDown(lifted, intent.pushed, intent.share) : lifted;
    const learned = this.#learned?.();
    const hits = learned ? this.#lifted(read, learned.pull(learningTerms(text), Date.now()), accept) : read;
    const wordScore = found[0]?.score ?? 0;
    if (exact.length === 0) return { hits: hits.slice(0, limit), wordScore, request, expand };
    const top = (hits[0]?.score ?? 0) + 1;
    const rest = hits.filter((hit) => !exact.includes(hit.name));
    return {
      hits: [...exact.map((name) => ({ name, score: top })), ...rest].slice(0, limit),
      wordScore: Math.max(wordScore, top),
      request,
      expand,
    };
  }

  /** Which tools a query may return: those of the servers its `server:` filter names, or all. */
  accepts(query: string): ((name: string) => boolean) | undefined {
    const { server } = parseToolQuery(query);
    return server === undefined ? undefined : (name) => this.#isOnServer(name, server);
  }

  /** The hits with the tools use has tied to the query's terms lifted (see `LEARNED_LIFT`). */
  #lifted(
    hits: ToolHit[],
    pulls: ReadonlyMap<string, number>,
    accept: ((name: string) => boolean) | undefined,
  ): ToolHit[] {
    if (pulls.size === 0) return hits;
    const lift = LEARNED_LIFT * (hits[0]?.score || 1);
    const scores = new Map(hits.map((hit) => [hit.name, hit.score]));
    for (const [name, pull] of pulls) {
      if (!this.#entries.has(name) || !(accept?.(name) ?? true)) continue;
      scores.set(name, (scores.get(name) ?? 0) + lift * pull);
    }
    return [...scores].map(([name, score]) => ({ name, score })).sort(byScore);
  }

  /** The hits with the first `NAME_COVERAGE_DEPTH` lifted by how much of the request their names say. */
  #namesLifted(hits: ToolHit[], request: readonly QueryPart[]): ToolHit[] {
    const candidates = hits.slice(0, NAME_COVERAGE_DEPTH);
    const coverage = this.#nameCoverage.of(
      request,
      candidates.map((hit) => hit.name),
    );
    if (coverage.size === 0) return hits;
    const lift = NAME_COVERAGE_LIFT * hits[0]!.score;
    return [
      ...candidates.map((hit) => ({ ...hit, score: hit.score + lift * (coverage.get(hit.name) ?? 0) })),
      ...hits.slice(NAME_COVERAGE_DEPTH),
    ].sort(byScore);
  }

  /** Each server the request names, with the lift its tools get. */
  #mentionLift(request: string): Map<string, number> {
    const mentioned = this.#servers.search(request, { limit: this.#toolsOf.size, expand: synonymsOf });
    return new Map(mentioned.map(({ id, score }) => [id, SERVER_MENTION_WEIGHT * score]));
  }

  #all(accept: ((name: string) => boolean) | undefined): ToolHit[] {
    const names = [...this.#entries.keys()];
    return (accept ? names.filter(accept) : names).sort().map((name) => ({ name, score: 0 }));
  }

  #isOnServer(name: string, server: string): boolean {
    return this.#entries.get(name)?.server.toLowerCase().includes(server) ?? false;
  }
}

/**
 * A request's own terms as learning keeps them: without its literal values, and without numbers,
 * which are values too (ids, counts), not words for a tool.
 */
function learningTerms(request: string): string[] {
  return [...new Set(tokenize(withoutValues(request)))].filter((term) => !/\d/.test(term));
}

/** Best score first; equal scores by name, so a ranking never depends on the order tools came in. */
function byScore(a: ToolHit, b: ToolHit): number {
  return b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** The hits with those named in `pushed` down by `share` of the best score. */
function pushedDown(hits: ToolHit[], pushed: ReadonlySet<string>, share: number): ToolHit[] {
  const penalty = share * (hits[0]?.score ?? 0);
  return hits
    .map((hit) => (pushed.has(hit.name) ? { ...hit, score: Math.max(0, hit.score - penalty) } : hit))
    .sort(byScore);
}
