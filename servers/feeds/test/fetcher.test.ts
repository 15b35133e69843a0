import { NetworkRefusal, refusalReason } from '@toolmesh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultUserAgent, FeedFetcher, FetchError, parseRetryAfter } from '../src/feeds/fetcher.js';
import { type FeedServer, startFeedServer } from './feed-server.js';

let server: FeedServer;
let fetcher: FeedFetcher;
/** Only ends a hang: a loaded machine took over 2 s to stream and inflate the gzip bomb to its cap. */
const HANG_BOUND_MS = 60_000;

beforeAll(async () => {
  server = await startFeedServer();
  fetcher = new FeedFetcher({ allowPrivateNetwork: true, timeoutMs: HANG_BOUND_MS, maxBytes: 4 * 2 ** 20 });
});
afterAll(async () => {
  fetcher.close();
  await server.close();
});

async function fetched(path: string) {
  const outcome = await fetcher.fetch(`${server.url}${path}`);
  if (outcome.kind !== 'fetched') throw new Error(`${path}: ${outcome.kind}`);
  return outcome;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  if (!error) throw new Error('expected the fetch to fail');
  return error;
}

describe('FeedFetcher', () => {
  it('sends a clear User-Agent and the validators back verbatim, and takes a 304', async () => {
    const first = await fetched('/fixtures/rss20.xml');
    expect(first.etag).toMatch(/^"[0-9a-f]{12}"$/);
    expect(first.lastModified).toBe('Tue, 05 Mar 2024 09:30:00 GMT');
    const again = await fetcher.fetch(`${server.url}/fixtures/rss20.xml`, first);
    expect(again).toEqual({
      kind: 'not-modified',
      url: `${server.url}/fixtures/rss20.xml`,
      movedPermanently: false,
    });
    const seen = server.requests.filter((r) => r.path === '/fixtures/rss20.xml');
    expect(seen[0]?.headers['user-agent']).toBe(defaultUserAgent());
    expect(seen[0]?.headers['if-none-match']).toBeUndefined();
    expect(seen[1]?.headers['if-none-match']).toBe(first.etag);
    expect(seen[1]?.headers['if-modified-since']).toBe(first.lastModified);
    expect(seen[1]?.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('reads gzip, br, zlib deflate and raw deflate bodies, and decodes the declared charset', async () => {
    const plain = (await fetched('/fixtures/atom.xml')).body;
    for (const encoding of ['gzip', 'br', 'deflate', 'deflate-raw']) {
      expect((await fetched(`/fixtures/atom.xml?encoding=${encoding}`)).body).toBe(plain);
    }
    expect((await fetched('/fixtures/latin1.xml')).body).toMatch(/Café crème/);
    expect((await failure(fetcher.fetch(`${server.url}/wrong-encoding`))).message).toMatch(
      /unsupported content-encoding "compress"/,
    );
  });

  it('turns 404, 500 and 429 into errors, keeping Retry-After', async () => {
    expect((await failure(fetcher.fetch(`${server.url}/status/404`))).message).toMatch(
      /^HTTP 404 not found from/,
    );
    const error = (await failure(fetcher.fetch(`${server.url}/status/500`))) as FetchError;
    expect(error).toBeInstanceOf(FetchError);
    expect(error.status).toBe(500);
    const slow = (await failure(fetcher.fetch(`${server.url}/retry-after/120`))) as FetchError;
    expect(slow).toMatchObject({ status: 429, retryAfterMs: 120_000 });
    expect(slow.message).toMatch(/HTTP 429 too many requests .* wait 120 s/);
    expect(
      parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:00 GMT')),
    ).toBe(60_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('says when every hop was a permanent redirect', async () => {
    expect((await fetched('/move/301')).movedPermanently).toBe(true);
    expect((await fetched('/move/308')).movedPermanently).toBe(true);
    expect((await fetched('/move/307')).movedPermanently).toBe(false);
    expect((await fetched(`/move/301?to=${encodeURIComponent('/move/302')}`)).movedPermanently).toBe(false);
    expect((await fetched('/fixtures/atom.xml')).movedPermanently).toBe(false);
  });

  it('follows up to 5 redirects and refuses a sixth', async () => {
    expect((await fetched('/redirect/5')).url).toBe(`${server.url}/fixtures/rss20.xml`);
    expect((await failure(fetcher.fetch(`${server.url}/redirect/6`))).message).toMatch(
      /more than 5 redirects/,
    );
  });

  it('stops a 100 MB body at the cap without holding it, drops the 100 MB body of an error, and stops a gzip bomb at the cap', async () => {
    const heap = process.memoryUsage().heapUsed;
    const error = await failure(fetcher.fetch(`${server.url}/huge`));
    expect(error.message).toMatch(/larger than the 4 MiB cap; the transfer was stopped/);
    expect(server.streamed()).toBeLessThan(40 * 2 ** 20);
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(40 * 2 ** 20);
    const before = server.streamed();
    expect((await failure(fetcher.fetch(`${server.url}/huge?status=500`))).message).toMatch(/^HTTP 500/);
    // Long enough for a drained body to stream far past the bound.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(server.streamed() - before).toBeLessThan(20 * 2 ** 20);
    expect((await failure(fetcher.fetch(`${server.url}/gzip-bomb`))).message).toMatch(
      /gzip body expands past the 4 MiB cap/,
    );
  });

  it('gives up on a server that never answers at the deadline', async () => {
    const quick = new FeedFetcher({ allowPrivateNetwork: true, timeoutMs: 300 });
    const started = Date.now();
    expect((await failure(quick.fetch(`${server.url}/hang`))).message).toMatch(
      /no complete answer within 0.3 s/,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    quick.close();
  });

  it('refuses other schemes and credentials', async () => {
    for (const address of [
      'file:///etc/passwd',
      'ftp://example.com/feed',
      'data:text/xml,<rss/>',
      'gopher://x',
    ]) {
      expect((await failure(fetcher.fetch(address))).message).toMatch(/not fetched: only http and https/);
    }
    expect((await failure(fetcher.fetch('http://user:pw@example.com/'))).message).toMatch(
      /user name or password/,
    );
    expect((await failure(fetcher.fetch('not a url'))).message).toMatch(/is not a URL/);
  });
});

describe('the SSRF guard', () => {
  it('names every private, loopback, link-local, CGNAT, unique-local and metadata range', () => {
    expect(refusalReason('169.254.169.254')).toMatch(/cloud metadata/);
    expect(refusalReason('fd00:ec2::254')).toMatch(/AWS metadata/);
    expect(refusalReason('100.100.100.200')).toMatch(/Alibaba/);
    expect(refusalReason('168.63.129.16')).toMatch(/Azure/);
    expect(refusalReason('127.0.0.53')).toMatch(/loopback/);
    expect(refusalReason('::1')).toMatch(/loopback/);
    expect(refusalReason('10.1.2.3')).toMatch(/private/);
    expect(refusalReason('172.31.255.255')).toMatch(/private/);
    expect(refusalReason('192.168.1.1')).toMatch(/private/);
    expect(refusalReason('100.64.0.1')).toMatch(/carrier-grade NAT/);
    expect(refusalReason('169.254.10.10')).toMatch(/link-local/);
    expect(refusalReason('fe80::1')).toMatch(/link-local/);
    expect(refusalReason('fd12:3456::1')).toMatch(/unique-local/);
    expect(refusalReason('::ffff:127.0.0.1')).toMatch(/IPv4-mapped/);
    expect(refusalReason('0.0.0.0')).toMatch(/unspecified/);
    expect(refusalReason('224.0.0.1')).toMatch(/multicast/);
    expect(refusalReason('64:ff9b::7f00:1')).toMatch(/NAT64 address of a loopback/);
    expect(refusalReason('64:ff9b::a9fe:a9fe')).toMatch(/NAT64 address of the cloud metadata/);
    expect(refusalReason('64:ff9b::a00:1')).toMatch(/NAT64 address of a private/);
    expect(refusalReason('::7f00:1')).toMatch(/IPv4-compatible address of a loopback/);
    expect(refusalReason('2002:c0a8:101::1')).toMatch(/6to4 address of a private/);
    expect(refusalReason('64:ff9b::5db8:d822')).toBeUndefined();
    expect(refusalReason('2002:5db8:d822::1')).toBeUndefined();
    expect(refusalReason('93.184.216.34')).toBeUndefined();
    expect(refusalReason('2606:2800:220:1:248:1893:25c8:1946')).toBeUndefined();
    expect(refusalReason('172.32.0.1')).toBeUndefined();
  });

  it('refuses 127.0.0.1, localhost and [::1] without --allow-private-network', async () => {
    const guarded = new FeedFetcher({ timeoutMs: HANG_BOUND_MS });
    const port = new URL(server.url).port;
    const before = server.requests.length;
    for (const address of [
      `${server.url}/fixtures/rss20.xml`,
      `http://[::1]:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
    ]) {
      const error = await failure(guarded.fetch(address));
      expect(error).toBeInstanceOf(NetworkRefusal);
      expect(error.message).toMatch(/--allow-private-network/);
    }
    for (const disguised of [
      'http://2130706433/',
      'http://0x7f.0.0.1/',
      'http://[::ffff:7f00:1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://[::127.0.0.1]/',
      'http://0/',
    ]) {
      expect((await failure(guarded.fetch(disguised))).message).toMatch(/refused to connect to/);
    }
    const named = await failure(guarded.fetch(`http://localhost:${port}/fixtures/rss20.xml`));
    expect(named.message).toMatch(
      /refused to connect to localhost \((127\.0\.0\.1|::1)\): it is a loopback address/,
    );
    expect(server.requests.length).toBe(before);
    guarded.close();
  });

  it('connects by name through its own lookup when private addresses are allowed', async () => {
    const port = new URL(server.url).port;
    const byName = await fetcher.fetch(`http://localhost:${port}/fixtures/rss20.xml`);
    expect(byName.kind).toBe('fetched');
    expect(server.requests.at(-1)?.headers.host).toBe(`localhost:${port}`);
  });

  it('checks every redirect hop: a trusted origin cannot redirect a fetch to a private address', async () => {
    const guarded = new FeedFetcher({ timeoutMs: HANG_BOUND_MS, exemptOrigins: [server.url] });
    expect((await guarded.fetch(`${server.url}/fixtures/rss20.xml`)).kind).toBe('fetched');
    const port = new URL(server.url).port;
    const toLocalhost = `${server.url}/redirect/1?to=${encodeURIComponent(`http://localhost:${port}/fixtures/rss20.xml`)}`;
    expect((await failure(guarded.fetch(toLocalhost))).message).toMatch(/refused to connect to localhost/);
    const toMetadata = `${server.url}/redirect/2?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`;
    expect((await failure(guarded.fetch(toMetadata))).message).toMatch(
      /refused to connect to 169\.254\.169\.254: it is the cloud metadata service/,
    );
    expect(server.hits('/latest/meta-data/')).toBe(0);
    guarded.close();
  });
});
