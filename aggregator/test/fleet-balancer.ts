// A small HTTP load balancer for the fleet tests, in front of toolmesh replicas: round-robin,
// sticky on Mcp-Session-Id (learned from the response, as HAProxy's stick-table does), or always
// the wrong replica. As the HAProxy set-up in docs/deployment.md does (`retry-on conn-failure
// empty-response`), it tries the next replica when one refuses the connection, or closes or resets
// it before any answer: a leaving replica that stops listening resets the connections the kernel
// had accepted for it but the replica had not yet taken. Any other failure reaches the client as a 502.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type BalancerPolicy = 'round-robin' | 'sticky' | 'wrong';

export class Balancer {
  policy: BalancerPolicy;
  #backends: URL[];
  #next = 0;
  readonly #owners = new Map<string, URL>();
  readonly #agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  readonly #server: http.Server;
  /** Requests that reached a replica, those answered by the balancer's 502, and the tries repeated elsewhere. */
  readonly counts = { requests: 0, failed: 0, retried: 0 };

  constructor(backends: string[], policy: BalancerPolicy) {
    this.#backends = backends.map((backend) => new URL(backend));
    this.policy = policy;
    this.#server = http.createServer((req, res) => void this.#serve(req, res));
    // As a real balancer does, it keeps an idle client connection longer than a client keeps it
    // (undici: about 4 s): else a client may send a request on a connection the balancer is
    // closing that very moment, and a POST is not retried, so the call fails for no fault of the
    // fleet.
    this.#server.keepAliveTimeout = 65_000;
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/mcp`;
  }

  set backends(backends: string[]) {
    this.#backends = backends.map((backend) => new URL(backend));
  }

  #pick(sessionId: string | undefined, attempt: number): URL {
    const owner = sessionId ? this.#owners.get(sessionId) : undefined;
    const live = this.#backends;
    if (owner && attempt === 0 && live.some((backend) => backend.host === owner.host)) {
      if (this.policy === 'sticky') return owner;
      if (this.policy === 'wrong') {
        const others = live.filter((backend) => backend.host !== owner.host);
        if (others.length > 0) return others[this.#next++ % others.length] as URL;
      }
    }
    return live[this.#next++ % live.length] as URL;
  }

  async #serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    for (let attempt = 0; attempt < 6; attempt++) {
      const backend = this.#pick(sessionId, attempt);
      const outcome = await this.#try(backend, req, res, body);
      if (outcome !== 'retry') return;
    }
    this.counts.failed++;
    res.writeHead(502).end('no replica answered');
  }

  #try(backend: URL, req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) {
    return new Promise<'done' | 'retry'>((resolve) => {
      const outgoing = http.request({
        agent: this.#agent,
        host: backend.hostname,
        port: backend.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: backend.host, 'content-length': body.length },
      });
      outgoing.on('response', (answer) => {
        this.counts.requests++;
        const id = answer.headers['mcp-session-id'];
        if (typeof id === 'string' && !this.#owners.has(id)) this.#owners.set(id, backend);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('close', () => {
          if (!answer.complete) res.destroy();
          resolve('done');
        });
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        const noAnswer =
          error.code === 'ECONNREFUSED' ||
          (error as { syscall?: string }).syscall === 'connect' ||
          error.code === 'ECONNRESET';
        if (noAnswer && !res.headersSent) {
          this.counts.retried++;
          return resolve('retry');
        }
        this.counts.failed++;
        if (!res.headersSent) res.writeHead(502).end(`replica failed: ${error.message}`);
        else res.destroy();
        resolve('done');
      });
      res.on('close', () => {
        if (!res.writableFinished) outgoing.destroy();
      });
      outgoing.end(body);
    });
  }

  async close(): Promise<void> {
    this.#agent.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
