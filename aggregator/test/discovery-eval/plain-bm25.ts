import type { IndexedTool } from '../../src/discovery/indexed-tool.js';

const K1 = 1.2;
const B = 0.75;

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/**
 * The baseline every figure is set beside: Okapi BM25 (k1 1.2, b 0.75) over each tool's
 * name and description, lowercased and split on non-alphanumerics, with no stemming,
 * stopwords, identifier splitting or synonyms. Gives every tool's score for a request.
 */
export function plainBm25(registry: readonly IndexedTool[]): (query: string) => Map<string, number> {
  const counts = registry.map((tool) => {
    const termCounts = new Map<string, number>();
    for (const word of words(`${tool.tool} ${tool.description ?? ''}`))
      termCounts.set(word, (termCounts.get(word) ?? 0) + 1);
    return termCounts;
  });
  const lengths = registry.map((tool) => words(`${tool.tool} ${tool.description ?? ''}`).length);
  const averageLength = lengths.reduce((sum, length) => sum + length, 0) / registry.length;
  const documentFrequency = new Map<string, number>();
  for (const termCounts of counts)
    for (const word of termCounts.keys()) documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
  return (query) => {
    const scores = new Map(registry.map(({ name }) => [name, 0]));
    for (const word of words(query)) {
      const frequency = documentFrequency.get(word);
      if (frequency === undefined) continue;
      const idf = Math.log(1 + (registry.length - frequency + 0.5) / (frequency + 0.5));
      registry.forEach((tool, at) => {
        const count = counts[at]!.get(word);
        if (!count) return;
        const saturation = count + K1 * (1 - B + (B * lengths[at]!) / averageLength);
        scores.set(tool.name, scores.get(tool.name)! + (idf * count * (K1 + 1)) / saturation);
      });
    }
    return scores;
  };
}
