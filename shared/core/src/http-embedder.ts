import { errorMessage, ToolError } from './tool-error.js';

export interface HttpEmbedderOptions {
  /** The endpoint's base (`http://127.0.0.1:11434/v1`) or its full `/embeddings` URL. */
  url: string;
  model: string;
  /** Sent as a bearer token; never logged. */
  apiKey?: string;
  timeoutMs?: number;
  /** What the user can do when the endpoint fails, said after the failure (default: check url and model). */
  remedy?: string;
}

/** The `/embeddings` URL of a base given with or without it. */
export function embeddingsUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return /\/embeddings$/.test(trimmed) ? trimmed : `${trimmed}/embeddings`;
}

/** Scales a vector to unit length in place (a zero vector stays zero). */
export function unitVector(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) * (vector[i] as number);
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) / norm;
  return vector;
}

/**
 * Any OpenAI-compatible embeddings endpoint (OpenAI, Ollama, llama.cpp, LM Studio, vLLM): POST
 * `{model, input: [...]}`, read `data[i].embedding` placed by `data[i].index`, each scaled to
 * unit length. The one embedding client of toolmesh: the memory server and the aggregator's
 * tool discovery both use it.
 */
export class HttpEmbedder {
  readonly id: string;
  readonly #endpoint: string;
  readonly #options: HttpEmbedderOptions;

  constructor(options: HttpEmbedderOptions) {
    this.#options = options;
    this.#endpoint = embeddingsUrl(options.url);
    this.id = `openai:${options.model}@${this.#endpoint}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const remedy = this.#options.remedy ?? `check its url and that ${this.#options.model} is served there.`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.#endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.#options.apiKey && { authorization: `Bearer ${this.#options.apiKey}` }),
        },
        body: JSON.stringify({ model: this.#options.model, input: texts }),
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 30_000),
      });
      // The timeout covers the body too: an endpoint that stalls mid-answer is one that does not answer.
      text = await response.text();
    } catch (error) {
      throw new ToolError(
        `the embeddings endpoint ${this.#endpoint} does not answer (${errorMessage(error)}): ${remedy}`,
        'embeddings_unavailable',
      );
    }
    if (!response.ok) {
      throw new ToolError(
        `the embeddings endpoint ${this.#endpoint} answered ${response.status}: ${text.slice(0, 300)}`,
        'embeddings_unavailable',
      );
    }
    let data: unknown;
    try {
      data = (JSON.parse(text) as { data?: unknown } | null)?.data;
    } catch {
      data = undefined;
    }
    const vectors: Float32Array[] = new Array(texts.length);
    for (const [position, entry] of (Array.isArray(data) ? data : []).entries()) {
      const { index = position, embedding } = (entry ?? {}) as { index?: unknown; embedding?: unknown };
      const fits =
        Number.isInteger(index) &&
        (index as number) >= 0 &&
        (index as number) < texts.length &&
        Array.isArray(embedding) &&
        embedding.length > 0 &&
        embedding.length === (vectors.find(Boolean)?.length ?? embedding.length) &&
        embedding.every((x) => typeof x === 'number' && Number.isFinite(x));
      if (fits) vectors[index as number] = unitVector(Float32Array.from(embedding as number[]));
    }
    if (vectors.filter(Boolean).length !== texts.length) {
      throw new ToolError(
        `the embeddings endpoint ${this.#endpoint} did not return one embedding per input (${texts.length} asked): is ${this.#options.model} an embeddings model?`,
        'embeddings_unavailable',
      );
    }
    return vectors;
  }
}
