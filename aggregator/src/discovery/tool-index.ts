import { Bm25Index, tokenize } from '@toolmesh/bm25';
import { parseToolQuery } from './query-syntax.js';
import { synonymsOf } from './synonyms.js';
import type { ToolEntry } from './tool-entry.js';
import { serverWords, type ToolField, toolFields } from './tool-fields.js';

export interface ToolHit {
  name: string;
  score: number;
}

export const TUNE = {
  fields: { name: 3, title: 2, description: 1, parameterNames: 0.5, parameterText: 0.3, server: 2 } as Record<
    ToolField,
    number
  >,
  b: {
    name: 0.75,
    title: 0.75,
    description: 0.75,
    parameterNames: 0.75,
    parameterText: 0.75,
    server: 0.75,
  } as Record<ToolField, number>,
  k1: 1.2,
  expansionWeight: 0.5,
  serverBeta: 0,
  serverPseudo: 0,
  cueBeta: 0,
  cuePower: 2,
  cueSyn: false,
  mentionBeta: 1.5,
  mentionShare: 0.5,
  mentionNames: false,
  intents: true,
  phrasal: true,
};

/**
 * Ranks the registry's tools for a request written by a model or a person. BM25F over the
 * tool's name, title, description, parameters and server, with synonyms; a query that is
 * exactly a tool's name puts that tool first, and `server:<name>` keeps to matching servers.
 */
export class ToolIndex {
  readonly #index = new Bm25Index<string, ToolField>({ fields: TUNE.fields, b: TUNE.b, k1: TUNE.k1 });
  readonly #entries = new Map<string, ToolEntry>();
  /** Lowercased exposed and original names → the exposed names they denote. */
  readonly #named = new Map<string, Set<string>>();

  get size(): number {
    return this.#entries.size;
  }

  upsert(entry: ToolEntry): void {
    this.remove(entry.name);
    this.#entries.set(entry.name, entry);
    this.#index.add(entry.name, toolFields(entry));
    for (const key of namesOf(entry)) {
      const names = this.#named.get(key) ?? new Set();
      this.#named.set(key, names.add(entry.name));
    }
  }

  remove(name: string): boolean {
    const entry = this.#entries.get(name);
    if (!entry) return false;
    for (const key of namesOf(entry)) {
      const names = this.#named.get(key)!;
      names.delete(name);
      if (names.size === 0) this.#named.delete(key);
    }
    this.#entries.delete(name);
    return this.#index.remove(name);
  }

  search(query: string, limit = 5): ToolHit[] {
    const { text, server } = parseToolQuery(query);
    const onServer = server === undefined ? undefined : (name: string) => this.#onServer(name, server);
    if (text === '') return this.#all(onServer).slice(0, limit);
    let qtext = text;
    if (TUNE.intents) {
      const extra: string[] = [];
      if (/\b(what|which)\b/i.test(text)) extra.push('list get');
      if (/\bwho\b/i.test(text)) extra.push('user');
      if (/\bhow many\b/i.test(text)) extra.push('count');
      if (/\bwhen\b/i.test(text)) extra.push('time');
      qtext = `${text} ${extra.join(' ')}`;
    }
    if (TUNE.phrasal) {
      const extra: string[] = [];
      for (const m of text
        .toLowerCase()
        .matchAll(
          /\b([a-z]+)\s+(?:(?:me|us|it|them|him|her|this|that|everything)\s+)?(out|in|up|off|back|down|over)\b/g,
        ))
        extra.push(m[1] + m[2]);
      qtext = `${qtext} ${extra.join(' ')}`;
    }
    let hits = this.#index
      .search(qtext, {
        limit: TUNE.serverBeta || TUNE.cueBeta || TUNE.mentionBeta ? this.size : limit,
        expand: synonymsOf,
        expansionWeight: TUNE.expansionWeight,
        ...(onServer && { filter: onServer }),
      })
      .map(({ id, score }) => ({ name: id, score }));
    if (TUNE.mentionBeta) {
      const tools = new Map<string, ToolEntry[]>();
      for (const e of this.#entries.values()) tools.set(e.server, [...(tools.get(e.server) ?? []), e]);
      const vocab = new Map<string, Set<string>>();
      for (const [server, list] of tools) {
        const v = new Set(tokenize(serverWords(server).join(' ')));
        if (TUNE.mentionNames) {
          const c = new Map<string, number>();
          for (const e of list)
            for (const t of new Set(tokenize(toolFields(e).name))) c.set(t, (c.get(t) ?? 0) + 1);
          for (const [t, n] of c) if (n >= TUNE.mentionShare * list.length && list.length >= 2) v.add(t);
        }
        vocab.set(server, v);
      }
      const sdf = new Map<string, number>();
      for (const v of vocab.values()) for (const t of v) sdf.set(t, (sdf.get(t) ?? 0) + 1);
      const S = vocab.size;
      const q = new Set(tokenize(text));
      const boost = new Map<string, number>();
      for (const [server, v] of vocab) {
        let b = 0;
        for (const t of q) if (v.has(t)) b += Math.log(1 + (S - sdf.get(t)! + 0.5) / (sdf.get(t)! + 0.5));
        boost.set(server, b);
      }
      hits = hits.map((hit) => {
        const s = this.#entries.get(hit.name)!.server;
        return { name: hit.name, score: hit.score + TUNE.mentionBeta * boost.get(s)! };
      });
      hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1));
      hits = hits.slice(0, limit);
    }
    if (TUNE.cueBeta) {
      const counts = new Map<string, number>();
      for (const e of this.#entries.values()) counts.set(e.server, (counts.get(e.server) ?? 0) + 1);
      const cue = new Map<string, number>();
      for (const term of new Set(tokenize(text))) {
        const th = this.#index.search(term, {
          limit: this.size,
          ...(TUNE.cueSyn && { expand: synonymsOf, expansionWeight: TUNE.expansionWeight }),
        });
        const n = this.size;
        const df = th.length;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        const per = new Map<string, number>();
        for (const h of th) {
          const s = this.#entries.get(h.id)!.server;
          per.set(s, (per.get(s) ?? 0) + 1);
        }
        for (const [s, c] of per)
          cue.set(s, (cue.get(s) ?? 0) + idf * (c / (counts.get(s)! + TUNE.serverPseudo)) ** TUNE.cuePower);
      }
      hits = hits.map((hit) => {
        const s = this.#entries.get(hit.name)!.server;
        return { name: hit.name, score: hit.score + TUNE.cueBeta * (cue.get(s) ?? 0) };
      });
      hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1));
      hits = hits.slice(0, limit);
    }
    if (TUNE.serverBeta) {
      const sums = new Map<string, number>();
      for (const hit of hits) {
        const s = this.#entries.get(hit.name)!.server;
        sums.set(s, (sums.get(s) ?? 0) + hit.score);
      }
      const counts = new Map<string, number>();
      for (const e of this.#entries.values()) counts.set(e.server, (counts.get(e.server) ?? 0) + 1);
      hits = hits.map((hit) => {
        const s = this.#entries.get(hit.name)!.server;
        return {
          name: hit.name,
          score: hit.score + (TUNE.serverBeta * sums.get(s)!) / (counts.get(s)! + TUNE.serverPseudo),
        };
      });
      hits.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1));
      hits = hits.slice(0, limit);
    }
    return this.#exactFirst(text, hits, limit, onServer);
  }

  /** A query naming a tool (exposed or original name) ranks that tool, or those tools, first. */
  #exactFirst(
    text: string,
    hits: ToolHit[],
    limit: number,
    accept: ((name: string) => boolean) | undefined,
  ): ToolHit[] {
    const exact = [...(this.#named.get(text.toLowerCase()) ?? [])].filter((name) => !accept || accept(name));
    if (exact.length === 0) return hits;
    const top = (hits[0]?.score ?? 0) + 1;
    const first = exact.sort().map((name) => ({ name, score: top }));
    return [...first, ...hits.filter((hit) => !exact.includes(hit.name))].slice(0, limit);
  }

  #all(accept: ((name: string) => boolean) | undefined): ToolHit[] {
    return [...this.#entries.keys()]
      .filter((name) => !accept || accept(name))
      .sort()
      .map((name) => ({ name, score: 0 }));
  }

  #onServer(name: string, server: string): boolean {
    const entry = this.#entries.get(name);
    if (!entry) return false;
    return (
      entry.server.toLowerCase().includes(server) || serverWords(entry.server).join('-').includes(server)
    );
  }
}

function namesOf(entry: ToolEntry): string[] {
  return [entry.name.toLowerCase(), entry.tool.toLowerCase()];
}
