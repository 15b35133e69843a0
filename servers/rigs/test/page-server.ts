import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const FIXTURES = new URL('./fixtures/', import.meta.url);

/** A long page, generated: headings, paragraphs, links and a table, like a reference page. */
function bigPage(): string {
  const sections = Array.from({ length: 400 }, (_, i) => {
    const rows = Array.from(
      { length: 5 },
      (_, r) => `<tr><td>item ${i}.${r}</td><td><a href="#s${i}-${r}">link ${i}.${r}</a></td></tr>`,
    ).join('');
    return `<h2 id="s${i}">Section ${i}</h2><p>Paragraph ${i} explains method_${i} with some words about vectors and slices.</p><table>${rows}</table>`;
  });
  return `<!doctype html><title>Big</title><main>${sections.join('')}<button>needle button</button></main>`;
}

export interface PageServer {
  origin: string;
  port: number;
  close(): Promise<void>;
}

/** Serves the test pages on 127.0.0.1; `/redirect?to=URL` redirects anywhere. */
export async function startPageServer(): Promise<PageServer> {
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/redirect') {
      response.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
      return;
    }
    if (url.pathname === '/big.html') {
      response.writeHead(200, { 'content-type': 'text/html' }).end(bigPage());
      return;
    }
    if (url.pathname === '/upload' && request.method === 'POST') {
      let size = 0;
      request.on('data', (chunk: Buffer) => {
        size += chunk.length;
      });
      request.on('end', () =>
        response.writeHead(200, { 'content-type': 'text/plain' }).end(`received ${size} bytes`),
      );
      return;
    }
    try {
      const body = readFileSync(new URL(`.${url.pathname}`, FIXTURES));
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    } catch {
      response.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
