// The two protocol eras over Streamable HTTP, in one run: what the core HTTP front spends on a
// 2026-07-28 request (no session: a server made for it, the SDK's createMcpHandler) against a
// 2025 session call (looked up by Mcp-Session-Id), and a trivial fs call by the real clients.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/server';
import { createLogger, serveToolCalls } from '@toolmesh/core';
import { startHttpFront } from '@toolmesh/core/http';
import { connectHttpClient, connectModernHttpClient, spawnHttpServer } from '@toolmesh/core/testing';
import { ECHO_STDIO } from './aggregator-overhead.mjs';
import { cpuMsOf } from './cpu-time.mjs';
import { table } from './markdown.mjs';
import { interleaved, micros } from './stats.mjs';
import { startToolmeshHttp, writeConfig } from './toolmesh.mjs';

const FRONT_CALLS = Number(process.env.ERAS_FRONT_CALLS ?? 3000);
const FRONT_ROUNDS = 10;
const AGGREGATOR_CALLS = Number(process.env.ERAS_AGGREGATOR_CALLS ?? 3000);
const CLIENT_CALLS = Number(process.env.ERAS_CLIENT_CALLS ?? 500);
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';

/** A trivial tool server, serving its calls as toolmesh's servers do (see serveToolCalls). */
function echoServer() {
  const serverInfo = { name: 'eras-bench', version: '1.0.0' };
  const server = new Server(serverInfo, { capabilities: { tools: {} } });
  serveToolCalls(
    server,
    async (request) => ({ content: [{ type: 'text', text: JSON.stringify(request.params.arguments) }] }),
    serverInfo,
  );
  return server;
}

/** A raw JSON-RPC POST on one kept-alive socket: the same client work for both eras. */
function poster(url) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (headers, body) =>
    new Promise((resolve, reject) => {
      const data = JSON.stringify(body);
      const request = http.request(
        url,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'content-length': Buffer.byteLength(data),
            ...headers,
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk) => {
            text += chunk;
          });
          response.on('end', () => resolve({ headers: response.headers, text }));
        },
      );
      request.on('error', reject);
      request.end(data);
    });
  return { post, close: () => agent.destroy() };
}

/**
 * `tools/call` of `tool` over one socket to `url` in either era: a 2025 session opened first and
 * its calls sent with Mcp-Session-Id, or a 2026-07-28 request carrying its envelope. Each call is
 * checked to answer with the text `expected`.
 */
async function eraCallers(url, tool, args, expected) {
  const { post, close } = poster(url);
  const opened = await post(
    {},
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    },
  );
  const session = { 'mcp-session-id': opened.headers['mcp-session-id'], 'mcp-protocol-version': LEGACY };
  await post(session, { jsonrpc: '2.0', method: 'notifications/initialized' });
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  let id = 1;
  const call = (meta) => ({ name: tool, arguments: args, ...(meta && { _meta: meta }) });
  const eras = {
    modern: () =>
      post(
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': tool },
        { jsonrpc: '2.0', id: id++, method: 'tools/call', params: call(envelope) },
      ),
    legacy: () => post(session, { jsonrpc: '2.0', id: id++, method: 'tools/call', params: call() }),
  };
  for (const [era, send] of Object.entries(eras)) {
    const answer = await send();
    if (!answer.text.includes(expected)) throw new Error(`the ${era} call failed: ${answer.text}`);
  }
  return { eras, close };
}

/**
 * CPU per call, in µs, of `calls` calls per era in FRONT_ROUNDS alternating rounds, as `cpuUs`
 * reads it (a running total); two unmeasured rounds warm both paths up.
 */
async function cpuPerCall(eras, cpuUs, calls) {
  const cpu = { modern: 0, legacy: 0 };
  const perRound = calls / FRONT_ROUNDS;
  for (let round = -2; round < FRONT_ROUNDS; round++) {
    const order = round % 2 === 0 ? ['modern', 'legacy'] : ['legacy', 'modern'];
    for (const era of order) {
      const before = cpuUs();
      for (let i = 0; i < perRound; i++) await eras[era]();
      if (round >= 0) cpu[era] += cpuUs() - before;
    }
  }
  return { modernUs: cpu.modern / calls, legacyUs: cpu.legacy / calls };
}

const processCpuUs = () => {
  const used = process.cpuUsage();
  return used.user + used.system;
};

/**
 * CPU per call of the bench process, which holds both the core HTTP front and a raw client that
 * does the same work for either era, so the difference is the front's.
 */
async function frontCost() {
  const front = await startHttpFront({
    createServer: echoServer,
    modernEra: true,
    host: '127.0.0.1',
    port: 0,
    log: createLogger({ level: 'error' }),
  });
  const callers = await eraCallers(front.url, 'echo', { text: 'hi' }, '\\"hi\\"');
  try {
    return await cpuPerCall(callers.eras, processCpuUs, FRONT_CALLS);
  } finally {
    callers.close();
    await front.close();
  }
}

/** Waits (up to a minute, on a busy machine) until toolmesh at `url` lists the echo server's tool. */
async function echoListed(url) {
  const { post, close } = poster(url);
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  try {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      const listed = await post(
        { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } },
      );
      if (listed.text.includes('echo__echo')) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error('toolmesh did not list echo__echo within a minute');
  } finally {
    close();
  }
}

/**
 * CPU per call of a `toolmesh serve` process over Streamable HTTP (its own, read from /proc; not
 * the echo server's behind it, which does the same for both eras), called by the raw client.
 */
async function aggregatorCost() {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-eras-aggregator-'));
  const config = writeConfig(folder, 'eras', { echo: ECHO_STDIO });
  const toolmesh = await startToolmeshHttp({ config, cwd: folder, dataDir: path.join(folder, 'data') });
  try {
    await echoListed(toolmesh.url);
    const callers = await eraCallers(toolmesh.url, 'echo__echo', { text: 'hi' }, '"text":"hi"');
    try {
      return await cpuPerCall(callers.eras, () => cpuMsOf(toolmesh.pid) * 1000, AGGREGATOR_CALLS);
    } finally {
      callers.close();
    }
  } finally {
    await toolmesh.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Wall time of `stat_file` on the built fs server, by the SDK's v2 client and by its v1 client. */
async function clientCalls() {
  const fsBin = fileURLToPath(new URL('../node_modules/@toolmesh/server-fs/dist/index.js', import.meta.url));
  const root = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-eras-'));
  writeFileSync(path.join(root, 'a.txt'), 'a\n');
  const server = await spawnHttpServer(process.execPath, [fsBin, '--root', root], {
    env: { TOOLMESH_DATA_DIR: path.join(root, '.data') },
  });
  try {
    const modern = await connectModernHttpClient(server.url);
    const legacy = await connectHttpClient(server.url);
    const call = (client) => async () => {
      const result = await client.call('stat_file', { path: 'a.txt' });
      if (result.isError) throw new Error(JSON.stringify(result));
    };
    const measured = await interleaved(
      { modern: call(modern), legacy: call(legacy) },
      { runs: CLIENT_CALLS, warmup: 50 },
    );
    await modern.close();
    await legacy.close();
    return { modern: measured.modern.stats, legacy: measured.legacy.stats };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

export async function benchmarkEras({ log }) {
  const load = os.loadavg()[0].toFixed(1);
  log('bench: protocol eras, the core HTTP front');
  const front = await frontCost();
  log('bench: protocol eras, a trivial call through toolmesh');
  const aggregator = await aggregatorCost();
  log('bench: protocol eras, fs stat_file by real clients');
  const clients = await clientCalls();
  return { front, aggregator, clients, load };
}

const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

export function renderErasSection({ front, aggregator, clients, load }) {
  return `## Protocol eras over Streamable HTTP

A 2026-07-28 request carries no session: the core HTTP front (\`shared/core/src/http-front.ts\`) tells its era
from the body's \`_meta\` claim. A plain \`tools/call\` is answered by the server's own handler past the SDK
(\`serveToolCalls\` in \`shared/core/src/modern-tool-calls.ts\`, which every toolmesh server and the aggregator use);
anything else by the SDK's \`createMcpHandler\`, with a server made for that request.
A 2025 call is looked up by its \`Mcp-Session-Id\` and handed to that session's transport. The modern path must
not cost more than the legacy one. Both eras are measured in the same run, interleaved, so the machine's noise falls
on both alike (load average ${load} on 2 cores shared with other work when the section started).

**The front's own cost:** the bench process serves a trivial \`tools/call\` (a v2 \`Server\` echoing its arguments, its calls
served as toolmesh's servers serve theirs) and calls it over one kept-alive loopback socket with a raw HTTP client that does the same work for either era;
CPU time of the process per call, ${FRONT_CALLS.toLocaleString('en-US')} calls per era in ${FRONT_ROUNDS} alternating rounds:

${table(
  ['Era', 'CPU per call (front and raw client)', 'Modern ÷ legacy'],
  [
    [
      `${MODERN} (no session)`,
      `**${Math.round(front.modernUs)} µs**`,
      `**${ratio(front.modernUs, front.legacyUs)}**`,
    ],
    [`${LEGACY} (session)`, `**${Math.round(front.legacyUs)} µs**`, ''],
  ],
)}

**Through toolmesh:** the same raw client calls \`echo__echo\` through \`toolmesh serve\` over Streamable HTTP, in front of
the bench's echo server over stdio; CPU time of the toolmesh process per call (from /proc, so its echo server, which
does the same for both eras, is left out), ${AGGREGATOR_CALLS.toLocaleString('en-US')} calls per era in ${FRONT_ROUNDS} alternating rounds. A 2026-07-28
request is served by a session server kept from an earlier request of the same endpoint and caller, not one built for it:

${table(
  ['Era', 'CPU per call (toolmesh)', 'Modern ÷ legacy'],
  [
    [
      `${MODERN} (no session)`,
      `**${Math.round(aggregator.modernUs)} µs**`,
      `**${ratio(aggregator.modernUs, aggregator.legacyUs)}**`,
    ],
    [`${LEGACY} (session)`, `**${Math.round(aggregator.legacyUs)} µs**`, ''],
  ],
)}

**A trivial call by the real clients:** \`stat_file\` on the built fs server over Streamable HTTP, by the SDK's v2
client pinned to ${MODERN} and by its v1 client in a 2025 session; wall time, ${CLIENT_CALLS} calls each, interleaved:

${table(
  ['Era', 'Median', 'p95', 'p99', 'Modern ÷ legacy (median)'],
  [
    [
      `${MODERN} (no session)`,
      `**${micros(clients.modern.median)}**`,
      micros(clients.modern.p95),
      micros(clients.modern.p99),
      `**${ratio(clients.modern.median, clients.legacy.median)}**`,
    ],
    [
      `${LEGACY} (session)`,
      `**${micros(clients.legacy.median)}**`,
      micros(clients.legacy.p95),
      micros(clients.legacy.p99),
      '',
    ],
  ],
)}

Before plain calls were answered past the SDK, the modern path cost more than the legacy one: 1.22× for the
front and 1.09× by the real clients' wall time. What it spent was inside the SDK's \`createMcpHandler\` (CPU
profile of this bench): a Fetch \`Response\` per answer whose body stream the front read back, an \`SdkError\`
(a stack trace) at each per-request server's close, and a schema check or two in the era classification.

Reproduce: \`pnpm build && node test/bench/run.mjs --only eras\` (or \`node test/bench/protocol-eras.mjs\`, which prints
this section without rewriting the page).
`;
}
