import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EgressProxy, REFUSAL_HEADER } from '../src/rigs/egress/egress-proxy.js';

let proxy: EgressProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

/** The Proxy-Authorization header of the proxy's own rig. */
const authorization = (of: EgressProxy) =>
  `Basic ${Buffer.from(`${of.credentials.username}:${of.credentials.password}`).toString('base64')}`;

/** The status line and headers the proxy answers a CONNECT to `target` with (with the rig's credentials unless `auth` says otherwise). */
function connectThrough(
  proxyUrl: string,
  target: string,
  auth = authorization(proxy as EgressProxy),
): Promise<string> {
  const { hostname, port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let answer = '';
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on('end', () => resolve(answer));
    const credentials = auth === '' ? '' : `Proxy-Authorization: ${auth}\r\n`;
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${credentials}\r\n`);
  });
}

function getThrough(
  proxyUrl: string,
  target: string,
  auth = authorization(proxy as EgressProxy),
): Promise<http.IncomingMessage> {
  const { hostname, port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const headers = auth === '' ? {} : { 'proxy-authorization': auth };
    const request = http.request(
      { host: hostname, port: Number(port), path: target, headers },
      (response) => {
        response.resume();
        resolve(response);
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('EgressProxy', () => {
  it('serves its own rig only: a request without the rig’s credentials, or with another’s, gets 407', async () => {
    const page = http.createServer((_request, response) => response.end('the page'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(page.address() as net.AddressInfo).port}`;
    const other = new EgressProxy({ allowedOrigins: [], allowPrivateNetwork: false });
    try {
      proxy = new EgressProxy({ allowedOrigins: [origin], allowPrivateNetwork: false });
      const url = await proxy.start();
      const bare = await getThrough(url, `${origin}/`, '');
      expect(bare.statusCode).toBe(407);
      expect(bare.headers['proxy-authenticate']).toMatch(/^Basic /);
      expect((await getThrough(url, `${origin}/`, authorization(other))).statusCode).toBe(407);
      expect(await connectThrough(url, origin.replace('http://', ''), '')).toMatch(
        /^HTTP\/1\.1 407 [\s\S]*Proxy-Authenticate: Basic/,
      );
      expect((await getThrough(url, `${origin}/`)).statusCode).toBe(200);
      expect(await connectThrough(url, origin.replace('http://', ''))).toMatch(/^HTTP\/1\.1 200 /);
      expect(proxy.urlWithCredentials).toBe(
        `http://rig:${proxy.credentials.password}@${url.replace('http://', '')}`,
      );
    } finally {
      page.closeAllConnections();
      await new Promise((resolve) => page.close(resolve));
    }
  });

  it('opens port 443 for a wss origin without a port, and leaves port 80 of its host refused', async () => {
    proxy = new EgressProxy({ allowedOrigins: ['wss://127.0.0.1'], allowPrivateNetwork: false });
    const url = await proxy.start();
    const plain = await getThrough(url, 'http://127.0.0.1/');
    expect(plain.statusCode).toBe(403);
    expect(decodeURI(String(plain.headers[REFUSAL_HEADER]))).toMatch(/127\.0\.0\.1:80 is a loopback address/);
    // An opened port gets past the refusal, whatever answers on it (or nothing).
    expect(await connectThrough(url, '127.0.0.1:443')).not.toMatch(/^HTTP\/1\.1 403/);
  });
});

describe('EgressProxy CONNECT', () => {
  // A port out of range never reaches the network: net.connect throws at once.
  it('answers a port out of range with 400 and keeps serving', async () => {
    proxy = new EgressProxy({ allowedOrigins: [], allowPrivateNetwork: false });
    const url = await proxy.start();
    expect(await connectThrough(url, '1.1.1.1:99999')).toMatch(/^HTTP\/1\.1 400 /);
    expect(await connectThrough(url, '127.0.0.1:1')).toMatch(/^HTTP\/1\.1 403 /);
  });
});

describe('EgressProxy plain HTTP', () => {
  it('answers 502 for a status line Node will not repeat, and keeps serving', async () => {
    const odd = net.createServer((socket) => {
      socket.once('data', () => socket.end('HTTP/1.1 099 Odd\r\ncontent-length: 0\r\n\r\n'));
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(odd.address() as net.AddressInfo).port}`;
    try {
      proxy = new EgressProxy({ allowedOrigins: [origin], allowPrivateNetwork: false });
      const url = await proxy.start();
      expect((await getThrough(url, `${origin}/`)).statusCode).toBe(502);
      expect((await getThrough(url, 'http://127.0.0.1:1/')).statusCode).toBe(403);
    } finally {
      await new Promise((resolve) => odd.close(resolve));
    }
  });
});
