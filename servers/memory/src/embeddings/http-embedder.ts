import { errorMessage, ToolError } from '@toolmesh/core';
import { type EmbeddingProvider, normalize } from './provider.js';

export interface HttpEmbedderOptions {
  /** The endpoint's base (`http://127.0.0.1:11434/v1`) or its full `/embeddings` URL. */
  url: string;
  model: string;
  /** Sent as a bearer token; never logged. */
  apiKey?: string;
  timeoutMs?: number;
}

/** The `/embeddings` URL of a base given with or without it. */
export function embeddingsUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return /\/embeddings$/.test(trimmed) ? trimmed : `${trimmed}/embeddings`;
}

/**
 * Any OpenAI-compatible embeddings endpoint (OpenAI, Ollama, llama.cpp, vLLM): POST
 * `{model, input: [...]}`, read `data[i].embedding` placed by `data[i].index`.
 */
export class HttpEmbedder implements EmbeddingProvider {
  readonly id: string;
  private readonly endpoint: string;

  constructor(private readonly options: HttpEmbedderOptions) {
    this.endpoint = embeddingsUrl(options.url);
    this.id = `openai:${options.model}@${this.endpoint}`;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.apiKey && { authorization: `Bearer ${this.options.apiKey}` }),
        },
        body: JSON.stringify({ model: this.options.model, input: texts }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
      // The timeout covers the body too: an endpoint that stalls mid-answer is one that does not answer.
      text = await response.text();
    } catch (error) {
      throw new ToolError(
        `the embeddings endpoint ${this.endpoint} does not answer (${errorMessage(error)}): use mode keyword, or fix --embeddings-url.`,
        'embeddings_unavailable',
      );
    }
    if (!response.ok) {
      throw new ToolError(
        `the embeddings endpoint ${this.endpoint} answered ${response.status}: ${text.slice(0, 300)}`,
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
      if (fits) vectors[index as number] = normalize(Float32Array.from(embedding as number[]));
    }
    if (vectors.filter(Boolean).length !== texts.length) {
      throw new ToolError(
        `the embeddings endpoint ${this.endpoint} did not return one embedding per input (${texts.length} asked): is ${this.options.model} an embeddings model?`,
        'embeddings_unavailable',
      );
    }
    return vectors;
  }
}
