import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo, isIP } from 'node:net';
import { guardedLookup, NetworkRefusal, refusalReason } from '@toolmesh/core';

/** What the proxy lets through besides the public web. */
export interface EgressPolicy {
  /** Origins (`http://127.0.0.1:8080`) reached even though private; each opens its host and port. */
  allowedOrigins: readonly string[];
  allowPrivateNetwork: boolean;
}

/** The header a refused plain-HTTP request is answered with, so navigate can say why. */
export const REFUSAL_HEADER = 'x-toolmesh-refused';

/** What a request without the rig's credentials is answered with. */
const AUTH_REALM = 'Basic realm="toolmesh-rigs"';

const OPEN_HINT = 'start toolmesh-rigs with --allow-origin <origin> or --allow-private-network to open it';

function hostPort(host: string, port: number): string {
  return `${host.replace(/^\[|\]$/g, '').toLowerCase()}:${port}`;
}

/** `host:port` of each allowed origin, with the scheme's default port filled in. */
function openedHostPorts(origins: readonly string[]): Set<string> {
  return new Set(
    origins.map((origin) => {
      const url = new URL(origin);
      const secure = url.protocol === 'https:' || url.protocol === 'wss:';
      return hostPort(url.hostname, Number(url.port || (secure ? 443 : 80)));
    }),
  );
}

/**
 * An HTTP proxy on loopback that every request of a rig's browser goes through (loopback too):
 * the public web passes; private, loopback, link-local and metadata addresses are refused unless
 * an allowed origin or --allow-private-network opens them. Names are resolved by the proxy itself,
 * and the socket connects to what was checked, so redirects, subresources and DNS rebinding are
 * all seen. It serves only its rig's own programs: every request must carry the rig's secret
 * credentials (Proxy-Authorization), so another local user cannot use it to reach what it opens.
 */
export class EgressProxy {
  /** The rig's secret, handed to its browser or programs only. */
  readonly credentials = { username: 'rig', password: randomBytes(24).toString('base64url') };
  private readonly expected = Buffer.from(
    `Basic ${Buffer.from(`${this.credentials.username}:${this.credentials.password}`).toString('base64')}`,
  );
  private readonly server: http.Server;
  private readonly opened: Set<string>;
  private readonly sockets = new Set<net.Socket>();
  /** Refusals since the last `takeRefusals`, for a navigate or network answer to report. */
  private refusals: string[] = [];
  /** Told of every exchange, for an engine whose protocol carries no network events. */
  private watcher: ((line: string) => void) | undefined;
  url = '';

  constructor(private readonly policy: EgressPolicy) {
    this.opened = openedHostPorts(policy.allowedOrigins);
    this.server = http.createServer((request, response) => this.forward(request, response));
    this.server.on('connect', (request, socket: net.Socket, head) => this.tunnel(request, socket, head));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', resolve);
    });
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** The proxy's URL with the credentials in it, for programs that read http_proxy. */
  get urlWithCredentials(): string {
    const url = new URL(this.url);
    url.username = this.credentials.username;
    url.password = this.credentials.password;
    return url.href.replace(/\/$/, '');
  }

  /** Whether a request carries the rig's credentials. */
  private admitted(request: http.IncomingMessage): boolean {
    const given = Buffer.from(request.headers['proxy-authorization'] ?? '');
    return given.length === this.expected.length && timingSafeEqual(given, this.expected);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Calls `watcher` with a line for each request the rig made (method, URL, status or refusal). */
  watch(watcher: (line: string) => void): void {
    this.watcher = watcher;
  }

  /** The refusals since the last `takeRefusals`, left in place. */
  pendingRefusals(): readonly string[] {
    return this.refusals;
  }

  takeRefusals(): string[] {
    const taken = this.refusals;
    this.refusals = [];
    return taken;
  }

  /** Why a connection to host:port is refused before any lookup, or undefined to go on. */
  private literalRefusal(host: string, port: number): string | undefined {
    if (this.policy.allowPrivateNetwork || this.opened.has(hostPort(host, port))) return undefined;
    const address = host.replace(/^\[|\]$/g, '');
    if (isIP(address) === 0) return undefined;
    const reason = refusalReason(address);
    return reason && `refused by rigs' egress proxy: ${address}:${port} is ${reason}; ${OPEN_HINT}.`;
  }

  private lookupFor(host: string, port: number) {
    const open = this.policy.allowPrivateNetwork || this.opened.has(hostPort(host, port));
    return guardedLookup(open);
  }

  private refused(error: unknown): string {
    const message =
      error instanceof NetworkRefusal
        ? `refused by rigs' egress proxy: ${error.message.replace(/ start the server with .*$/, '')} ${OPEN_HINT}.`
        : `could not connect: ${(error as Error).message}`;
    return message;
  }

  private note(message: string): string {
    this.refusals.push(message);
    if (this.refusals.length > 50) this.refusals.shift();
    return message;
  }

  private forward(request: http.IncomingMessage, response: http.ServerResponse): void {
    if (!this.admitted(request)) {
      response
        .writeHead(407, { 'proxy-authenticate': AUTH_REALM, 'content-type': 'text/plain; charset=utf-8' })
        .end('rigs’ egress proxy serves its own rig only: the rig’s credentials are required.');
      return;
    }
    let target: URL;
    try {
      target = new URL(request.url ?? '');
    } catch {
      response.writeHead(400).end('rigs’ egress proxy takes absolute http URLs only');
      return;
    }
    const refuse = (message: string) => {
      this.watcher?.(`${request.method} ${target.href} ✗ ${message}`);
      if (response.headersSent) {
        response.destroy();
        return;
      }
      response.writeHead(403, {
        'content-type': 'text/plain; charset=utf-8',
        [REFUSAL_HEADER]: encodeURI(message),
      });
      response.end(message);
    };
    if (target.href.startsWith(`${this.url}/`)) {
      // A request for the proxy itself: a browser loads it once to learn the credentials.
      response.writeHead(204).end();
      return;
    }
    if (target.protocol !== 'http:') {
      refuse(this.note(`refused by rigs' egress proxy: ${target.protocol} URLs are not fetched.`));
      return;
    }
    const port = Number(target.port || 80);
    const early = this.literalRefusal(target.hostname, port);
    if (early) {
      refuse(this.note(early));
      return;
    }
    const headers = { ...request.headers };
    for (const name of Object.keys(headers)) if (name.startsWith('proxy-')) delete headers[name];
    const upstream = http.request(
      {
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port,
        path: `${target.pathname}${target.search}`,
        method: request.method,
        headers,
        lookup: this.lookupFor(target.hostname, port),
      },
      (answer) => {
        // A server on the web picks what it answers; what Node will not repeat (status 099, say)
        // throws here, which would end the whole server.
        try {
          response.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
          this.watcher?.(`${request.method} ${target.href} → ${answer.statusCode ?? '?'}`);
        } catch (error) {
          answer.destroy();
          response.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
          response.end(`rigs' egress proxy could not pass the answer on: ${(error as Error).message}`);
          return;
        }
        answer.pipe(response);
      },
    );
    upstream.on('error', (error) => {
      const message = this.refused(error);
      if (error instanceof NetworkRefusal) this.note(message);
      this.watcher?.(`${request.method} ${target.href} ✗ ${message}`);
      if (!response.headersSent)
        response.writeHead(error instanceof NetworkRefusal ? 403 : 502, {
          'content-type': 'text/plain; charset=utf-8',
          [REFUSAL_HEADER]: encodeURI(message),
        });
      response.end(message);
    });
    request.pipe(upstream);
  }

  private tunnel(request: http.IncomingMessage, client: net.Socket, head: Buffer): void {
    const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(request.url ?? '');
    client.on('error', () => undefined);
    if (!this.admitted(request)) {
      client.end(`HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: ${AUTH_REALM}\r\n\r\n`);
      return;
    }
    // net.connect throws on a port out of range, which here would end the whole server.
    if (!match || Number(match[2]) > 65535) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const host = (match[1] as string).replace(/^\[|\]$/g, '');
    const port = Number(match[2]);
    const early = this.literalRefusal(host, port);
    if (early) {
      this.note(early);
      this.watcher?.(`CONNECT ${host}:${port} ✗ ${early}`);
      client.end(`HTTP/1.1 403 Forbidden\r\n${REFUSAL_HEADER}: ${encodeURI(early)}\r\n\r\n`);
      return;
    }
    const upstream = net.connect({ host, port, lookup: this.lookupFor(host, port) });
    upstream.on('connect', () => {
      this.watcher?.(`CONNECT ${host}:${port} → tunnel (https: its requests are not seen)`);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (error) => {
      const message = this.refused(error);
      if (error instanceof NetworkRefusal) this.note(message);
      this.watcher?.(`CONNECT ${host}:${port} ✗ ${message}`);
      client.end(`HTTP/1.1 ${error instanceof NetworkRefusal ? '403 Forbidden' : '502 Bad Gateway'}\r\n\r\n`);
    });
    client.on('close', () => upstream.destroy());
  }
}
