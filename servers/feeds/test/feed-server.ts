import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

/** A generated RSS 2.0 feed of `count` items, each with a guid, a date and a paragraph. */
export function largeFeed(count: number, prefix = 'item'): string {
  const items = Array.from(
    { length: count },
    (_, n) =>
      `<item><title>${prefix} ${n}</title><link>https://large.example.com/${prefix}/${n}</link><guid>${prefix}-${n}</guid><pubDate>${new Date(Date.UTC(2024, 0, 1) + n * 60_000).toUTCString()}</pubDate><description>&lt;p&gt;Body of ${prefix} ${n}: a paragraph about feeds, parsers and polite polling.&lt;/p&gt;</description></item>`,
  );
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Large ${prefix}</title><link>https://large.example.com/</link><description>generated</description>${items.join('')}</channel></rss>`;
}

const TYPES: Record<string, string> = {
  xml: 'application/rss+xml',
  json: 'application/feed+json',
  html: 'text/html; charset=utf-8',
};

interface Route {
  body: Buffer;
  type: string;
  /** Serves ETag and Last-Modified and answers 304 to a matching conditional request. */
  validators?: boolean;
}

export interface FeedServer {
  url: string;
  /** Requests seen per path (query stripped), in order, with their headers. */
  requests: { path: string; headers: http.IncomingHttpHeaders }[];
  hits(path: string): number;
  /** Serves `body` at `path` from now on, with validators derived from its content. */
  set(path: string, body: string | Buffer, type?: string): void;
  /** Bytes the streaming routes have written so far. */
  streamed(): number;
  /** The most /slow/<n> requests the server was answering at once. */
  peakConcurrency(): number;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 with a route for every feed format and every bad case:
 * /fixtures/<file> (validators, conditional GET, ?encoding=gzip|deflate|br), /large/<n>.xml,
 * /status/<code>, /retry-after/<seconds>, /redirect/<n>?to=<url> (302s), /move/<301|302|307|308>?to=<url>, /huge[?status=N] (streams up to 100 MB),
 * /slow/<n> (answers after 100 ms, counting how many at once), /gzip-bomb, /hang (never answers),
 * /wrong-encoding.
 */
export async function startFeedServer(): Promise<FeedServer> {
  const routes = new Map<string, Route>();
  const requests: FeedServer['requests'] = [];
  const sockets = new Set<import('node:net').Socket>();
  let streamed = 0;
  let slowNow = 0;
  let slowPeak = 0;

  const serveRoute = (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    route: Route,
    encoding: string,
  ) => {
    const etag = `"${createHash('sha1').update(route.body).digest('hex').slice(0, 12)}"`;
    const lastModified = 'Tue, 05 Mar 2024 09:30:00 GMT';
    if (route.validators !== false) {
      // If-None-Match, when sent, decides alone (RFC 9110 13.2.2).
      const unchanged =
        request.headers['if-none-match'] !== undefined
          ? request.headers['if-none-match'] === etag
          : request.headers['if-modified-since'] === lastModified;
      if (unchanged) {
        response.writeHead(304, { etag, 'last-modified': lastModified }).end();
        return;
      }
    }
    let body = route.body;
    const headers: http.OutgoingHttpHeaders = { 'content-type': route.type };
    if (route.validators !== false) Object.assign(headers, { etag, 'last-modified': lastModified });
    if (encoding === 'gzip') body = zlib.gzipSync(body);
    if (encoding === 'br') body = zlib.brotliCompressSync(body);
    if (encoding === 'deflate') body = zlib.deflateSync(body);
    if (encoding === 'deflate-raw') body = zlib.deflateRawSync(body);
    if (encoding) headers['content-encoding'] = encoding === 'deflate-raw' ? 'deflate' : encoding;
    response.writeHead(200, headers).end(body);
  };

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    requests.push({ path: url.pathname, headers: request.headers });
    const encoding = url.searchParams.get('encoding') ?? '';
    const path = url.pathname;
    const set = routes.get(path);
    if (set) return serveRoute(request, response, set, encoding);
    const param = (pattern: RegExp) => pattern.exec(path)?.[1];
    const name = param(/^\/fixtures\/([\w.-]+)$/);
    if (name) {
      let body: Buffer;
      try {
        body = fixture(name);
      } catch {
        response.writeHead(404).end('no such fixture');
        return;
      }
      const type =
        name === 'rss091.xml'
          ? 'application/rss+xml; charset=ISO-8859-1'
          : (TYPES[name.split('.').pop() ?? ''] ?? 'application/xml');
      return serveRoute(request, response, { body, type }, encoding);
    }
    const large = param(/^\/large\/(\d+)\.xml$/);
    if (large) {
      return serveRoute(
        request,
        response,
        { body: Buffer.from(largeFeed(Number(large))), type: TYPES.xml! },
        encoding,
      );
    }
    const status = param(/^\/status\/(\d+)$/);
    if (status) {
      response.writeHead(Number(status), { 'content-type': 'text/plain' }).end('status page');
      return;
    }
    const seconds = param(/^\/retry-after\/(\d+)$/);
    if (seconds) {
      response.writeHead(429, { 'retry-after': seconds }).end('slow down');
      return;
    }
    const hops = param(/^\/redirect\/(\d+)$/);
    if (hops) {
      const left = Number(hops);
      const to = url.searchParams.get('to') ?? '/fixtures/rss20.xml';
      response
        .writeHead(302, { location: left > 1 ? `/redirect/${left - 1}?to=${encodeURIComponent(to)}` : to })
        .end();
      return;
    }
    if (path === '/huge') {
      // 100 MB of an endless RSS document, written chunk by chunk as the client reads.
      response.writeHead(Number(url.searchParams.get('status') ?? 200), { 'content-type': TYPES.xml! });
      const chunk = Buffer.alloc(64 * 1024, '<item><title>x</title></item>');
      let left = 100 * 2 ** 20;
      const pump = () => {
        while (left > 0) {
          left -= chunk.length;
          streamed += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      response.write('<?xml version="1.0"?><rss version="2.0"><channel>');
      pump();
      return;
    }
    if (path === '/gzip-bomb') {
      response.writeHead(200, { 'content-type': TYPES.xml!, 'content-encoding': 'gzip' });
      response.end(zlib.gzipSync(Buffer.alloc(50 * 2 ** 20, 'a')));
      return;
    }
    const moveStatus = param(/^\/move\/(30[1278])$/);
    if (moveStatus) {
      response
        .writeHead(Number(moveStatus), { location: url.searchParams.get('to') ?? '/fixtures/atom.xml' })
        .end();
      return;
    }
    if (path.startsWith('/slow/')) {
      slowNow++;
      slowPeak = Math.max(slowPeak, slowNow);
      setTimeout(() => {
        slowNow--;
        serveRoute(request, response, { body: fixture('rss20.xml'), type: TYPES.xml! }, '');
      }, 100);
      return;
    }
    if (path === '/hang') return; // never answers
    if (path === '/wrong-encoding') {
      response.writeHead(200, { 'content-type': TYPES.xml!, 'content-encoding': 'compress' }).end('x');
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    hits: (path) => requests.filter((r) => r.path === path).length,
    set: (path, body, type = TYPES.xml!) => routes.set(path, { body: Buffer.from(body), type }),
    streamed: () => streamed,
    peakConcurrency: () => slowPeak,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
