import type http from 'node:http';
import type https from 'node:https';
import type zlib from 'node:zlib';
import { checkLiteralHost, guardedLookup, NetworkRefusal, packageVersion } from '@toolmesh/core';

/** Says who polls, how often and that it asks conditionally, so a feed's owner can tell. */
export function defaultUserAgent(): string {
  return `toolmesh-feeds/${packageVersion(import.meta.url)} (feed reader for AI agents; polls at most every 30 minutes; conditional GET)`;
}
const ACCEPT =
  'application/rss+xml, application/atom+xml, application/feed+json, application/rdf+xml;q=0.9, application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, text/html;q=0.5, */*;q=0.1';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** A Retry-After further away than this is taken as this: a feed is not abandoned on a header's word. */
const MAX_RETRY_AFTER_MS = 7 * 24 * 3600_000;

export interface FetcherOptions {
  allowPrivateNetwork?: boolean;
  /** For the whole fetch, redirects included (default 20 s). */
  timeoutMs?: number;
  /** Largest body accepted, compressed or not (default 5 MiB). */
  maxBytes?: number;
  maxRedirects?: number;
  userAgent?: string;
  /**
   * Origins (`http://host:port`) fetched without the SSRF guard, such as a trusted local feed proxy;
   * a redirect from one to anywhere else is checked as usual.
   */
  exemptOrigins?: readonly string[];
}

export interface ConditionalHeaders {
  etag?: string | null;
  lastModified?: string | null;
}

/** Where an answer came from, after redirects; `movedPermanently` when every hop was a 301 or 308. */
interface Landing {
  url: string;
  movedPermanently: boolean;
}

export type FetchOutcome =
  | ({ kind: 'not-modified' } & Landing)
  | ({
      kind: 'fetched';
      body: string;
      contentType: string;
      etag: string | null;
      lastModified: string | null;
    } & Landing);

/** A fetch that failed; `retryAfterMs` when the server said when to come back (429, 503). */
export class FetchError extends Error {
  override readonly name = 'FetchError';
  constructor(
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  if (Number.isNaN(ms)) return undefined;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

function header(response: http.IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

interface Network {
  http: typeof http;
  https: typeof https;
  zlib: typeof zlib;
}

let network: Promise<Network> | undefined;

/**
 * Node's HTTP, TLS and zlib modules, loaded at the first fetch: a server that has not fetched
 * yet holds none of them (about 1 MiB of an idle server, docs/benchmarks.md, memory at rest).
 */
function loadNetwork(): Promise<Network> {
  network ??= Promise.all([import('node:http'), import('node:https'), import('node:zlib')]).then(
    ([http, https, zlib]) => ({ http: http.default, https: https.default, zlib: zlib.default }),
  );
  return network;
}

function decompress(zlib: Network['zlib'], raw: Buffer, encoding: string, maxBytes: number): Buffer {
  const options = { maxOutputLength: maxBytes };
  try {
    switch (encoding) {
      case '':
      case 'identity':
        return raw;
      case 'gzip':
      case 'x-gzip':
        return zlib.gunzipSync(raw, options);
      case 'br':
        return zlib.brotliDecompressSync(raw, options);
      case 'deflate': {
        // "deflate" is meant to be zlib-wrapped, but some servers send raw deflate.
        const wrapped = raw.length >= 2 && (raw[0]! & 0x0f) === 8 && ((raw[0]! << 8) | raw[1]!) % 31 === 0;
        return wrapped ? zlib.inflateSync(raw, options) : zlib.inflateRawSync(raw, options);
      }
      default:
        throw new FetchError(`the server answered with an unsupported content-encoding "${encoding}"`);
    }
  } catch (error) {
    if (error instanceof FetchError) throw error;
    if (error instanceof RangeError) {
      throw new FetchError(`the ${encoding} body expands past the ${mib(maxBytes)} cap`);
    }
    throw new FetchError(`the ${encoding} body is corrupt (${(error as Error).message})`);
  }
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(bytes % 2 ** 20 === 0 ? 0 : 1)} MiB`;

function charsetOf(contentType: string, head: Buffer): string {
  const declared =
    /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1] ??
    /^<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/i.exec(head.toString('latin1'))?.[1];
  return declared ?? 'utf-8';
}

function decodeText(body: Buffer, contentType: string): string {
  const charset = charsetOf(contentType, body.subarray(0, 200));
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/**
 * Fetches feed documents over http(s) politely and defensively: conditional GET with the
 * validators sent back verbatim, gzip / deflate / br bodies, one deadline for the whole fetch, a
 * body cap enforced while the body streams in, redirects followed one hop at a time (each hop's
 * address checked by the SSRF guard, at most 5), and a clear User-Agent.
 */
export class FeedFetcher {
  readonly timeoutMs: number;
  readonly maxBytes: number;
  private readonly allowPrivate: boolean;
  private readonly maxRedirects: number;
  private readonly userAgent: string;
  private readonly lookup;
  private readonly exemptOrigins: ReadonlySet<string>;
  /** Made at the first request, with the modules they come from. */
  private agents: { http: http.Agent; https: https.Agent } | undefined;

  constructor(options: FetcherOptions = {}) {
    this.allowPrivate = options.allowPrivateNetwork ?? false;
    this.timeoutMs = options.timeoutMs ?? 20_000;
    this.maxBytes = options.maxBytes ?? 5 * 2 ** 20;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.userAgent = options.userAgent ?? defaultUserAgent();
    this.lookup = guardedLookup(this.allowPrivate);
    this.exemptOrigins = new Set(options.exemptOrigins ?? []);
  }

  close(): void {
    this.agents?.http.destroy();
    this.agents?.https.destroy();
  }

  async fetch(
    address: string,
    conditional: ConditionalHeaders = {},
    signal?: AbortSignal,
  ): Promise<FetchOutcome> {
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let url = checkedUrl(address);
    let permanent = true;
    const modules = await loadNetwork();
    for (let hop = 0; ; hop++) {
      const response = await this.request(modules, url, conditional, combined, deadline);
      const status = response.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        // Dropped rather than drained: a redirect's or an error's body is not worth any of the deadline.
        response.destroy();
        const location = header(response, 'location');
        if (!location) throw new FetchError(`HTTP ${status} redirect without a Location header`, status);
        if (hop >= this.maxRedirects) {
          throw new FetchError(
            `more than ${this.maxRedirects} redirects (the last one to ${location})`,
            status,
          );
        }
        url = checkedUrl(location, url);
        permanent &&= status === 301 || status === 308;
        continue;
      }
      if (status === 304) {
        response.resume();
        return { kind: 'not-modified', url: url.href, movedPermanently: hop > 0 && permanent };
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        const retryAfter = parseRetryAfter(header(response, 'retry-after'));
        const what = status === 429 ? 'too many requests' : (response.statusMessage ?? '').toLowerCase();
        throw new FetchError(
          `HTTP ${status}${what ? ` ${what}` : ''} from ${url.href}${retryAfter !== undefined ? `; the server asks to wait ${Math.ceil(retryAfter / 1000)} s` : ''}`,
          status,
          retryAfter,
        );
      }
      const raw = await this.readCapped(response, url, combined, deadline);
      const contentType = header(response, 'content-type') ?? '';
      const encoding = (header(response, 'content-encoding') ?? '').trim().toLowerCase();
      return {
        kind: 'fetched',
        url: url.href,
        movedPermanently: hop > 0 && permanent,
        body: decodeText(decompress(modules.zlib, raw, encoding, this.maxBytes), contentType),
        contentType,
        etag: header(response, 'etag') ?? null,
        lastModified: header(response, 'last-modified') ?? null,
      };
    }
  }

  private request(
    { http, https }: Network,
    url: URL,
    conditional: ConditionalHeaders,
    signal: AbortSignal,
    deadline: AbortSignal,
  ): Promise<http.IncomingMessage> {
    const exempt = this.exemptOrigins.has(url.origin);
    checkLiteralHost(url.hostname, this.allowPrivate || exempt);
    const headers: Record<string, string> = {
      'user-agent': this.userAgent,
      accept: ACCEPT,
      'accept-encoding': 'gzip, deflate, br',
    };
    if (conditional.etag) headers['if-none-match'] = conditional.etag;
    if (conditional.lastModified) headers['if-modified-since'] = conditional.lastModified;
    const secure = url.protocol === 'https:';
    this.agents ??= {
      http: new http.Agent({ keepAlive: true, maxSockets: 8 }),
      https: new https.Agent({ keepAlive: true, maxSockets: 8 }),
    };
    const agents = this.agents;
    return new Promise((resolve, reject) => {
      const request = (secure ? https : http).request(url, {
        method: 'GET',
        headers,
        agent: secure ? agents.https : agents.http,
        ...(!exempt && { lookup: this.lookup }),
        signal,
      });
      request.once('response', resolve);
      request.once('error', (error) => reject(this.explain(error, url, signal, deadline)));
      request.end();
    });
  }

  /** Reads the body, stopping the transfer as soon as it passes the cap: nothing past it is held. */
  private async readCapped(
    response: http.IncomingMessage,
    url: URL,
    signal: AbortSignal,
    deadline: AbortSignal,
  ): Promise<Buffer> {
    const declared = Number(header(response, 'content-length'));
    if (declared > this.maxBytes) {
      response.destroy();
      throw new FetchError(`the body is ${mib(declared)}, over the ${mib(this.maxBytes)} cap`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > this.maxBytes) {
          response.destroy();
          throw new FetchError(
            `the body is larger than the ${mib(this.maxBytes)} cap; the transfer was stopped`,
          );
        }
        chunks.push(chunk);
      }
    } catch (error) {
      if (error instanceof FetchError) throw error;
      throw this.explain(error as Error, url, signal, deadline);
    }
    return Buffer.concat(chunks, size);
  }

  private explain(error: Error, url: URL, signal: AbortSignal, deadline: AbortSignal): Error {
    if (error instanceof NetworkRefusal || error instanceof FetchError) return error;
    if (deadline.aborted) {
      return new FetchError(`no complete answer within ${this.timeoutMs / 1000} s; the fetch was stopped`);
    }
    if (signal.aborted) return new FetchError('the fetch was cancelled');
    const code = (error as NodeJS.ErrnoException).code;
    const where = url.host;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      return new FetchError(`cannot resolve the host ${where}`);
    if (code === 'ECONNREFUSED') return new FetchError(`${where} refused the connection`);
    if (code === 'ECONNRESET') return new FetchError(`${where} closed the connection mid-answer`);
    return new FetchError(`${where}: ${error.message}`);
  }
}

/** Only http and https, with credentials refused (they would be sent to whoever the feed redirects to). */
export function checkedUrl(address: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(address, base);
  } catch {
    throw new FetchError(`"${address}" is not a URL: give an http:// or https:// address`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError(
      `${url.protocol} addresses are not fetched: only http and https (got ${url.href.slice(0, 100)})`,
    );
  }
  if (url.username || url.password) {
    throw new FetchError('the address carries a user name or password: give it without credentials');
  }
  url.hash = '';
  return url;
}
