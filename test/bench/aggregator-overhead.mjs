// Proxy overhead: a trivial `echo` call made directly to the echo server, through toolmesh, and
// through the public proxies mcp-proxy and mcp-hub, all in the same run, interleaved call by call.
import { fileURLToPath } from 'node:url';
import { connectHttpClient, connectModernHttpClient, spawnStdioClient } from '@toolmesh/core/testing';
import { mcpHubVersion, startMcpHub } from './mcp-hub.mjs';
import { mcpProxyVersion, startMcpProxy } from './mcp-proxy.mjs';
import { startProcess } from './processes.mjs';
import { connectSseClient } from './sse-client.mjs';
import { interleaved } from './stats.mjs';
import { startToolmeshHttp, startToolmeshStdio, writeConfig } from './toolmesh.mjs';

const ECHO_SERVER = fileURLToPath(new URL('./echo-server.mjs', import.meta.url));
export const ECHO_STDIO = { command: process.execPath, args: [ECHO_SERVER] };
const TEXT = 'ping';

/** The echo server over HTTP: Streamable HTTP at the returned URL, legacy SSE beside it. */
export function startEchoHttp() {
  return startProcess({
    command: process.execPath,
    args: [ECHO_SERVER, '--http'],
    ready: /listening on (http:\/\/\S+\/mcp)\b/,
  });
}

/** A connected client's call of its echo tool, whatever name the proxy gave it. */
async function echoCall(connected) {
  const { tools } = await connected.client.listTools();
  const echo = tools.find((tool) => tool.name === 'echo' || tool.name.endsWith('__echo'));
  if (!echo) throw new Error(`no echo tool among ${tools.map((tool) => tool.name).join(', ')}`);
  return async () => {
    const result = await connected.call(echo.name, { text: TEXT });
    if (result.isError || result.content?.[0]?.text !== TEXT)
      throw new Error(`${echo.name} answered ${JSON.stringify(result)}`);
  };
}

/**
 * Every path, each with the direct call it is compared with and its floor: the sum of the
 * direct calls its hops are made of, since each hop is one more full round trip.
 */
const PATHS = [
  { name: 'direct-stdio', label: 'direct', client: 'stdio', downstream: '—', floor: [] },
  {
    name: 'toolmesh-stdio',
    label: 'toolmesh',
    client: 'stdio',
    downstream: 'stdio',
    baseline: 'direct-stdio',
    floor: ['direct-stdio', 'direct-stdio'],
  },
  { name: 'direct-http', label: 'direct', client: 'Streamable HTTP', downstream: '—', floor: [] },
  {
    name: 'toolmesh-http-http',
    label: 'toolmesh',
    client: 'Streamable HTTP',
    downstream: 'Streamable HTTP',
    baseline: 'direct-http',
    floor: ['direct-http', 'direct-http'],
  },
  {
    name: 'toolmesh-http-stdio',
    label: 'toolmesh',
    client: 'Streamable HTTP',
    downstream: 'stdio',
    baseline: 'direct-http',
    floor: ['direct-http', 'direct-stdio'],
  },
  {
    // The same toolmesh process, called by a 2026-07-28 client: no session (issue 22).
    name: 'toolmesh-http-stdio-modern',
    label: 'toolmesh',
    client: 'Streamable HTTP, 2026-07-28',
    downstream: 'stdio',
    baseline: 'direct-http',
    floor: ['direct-http', 'direct-stdio'],
  },
  {
    name: 'mcp-proxy',
    label: `mcp-proxy ${mcpProxyVersion()}`,
    client: 'Streamable HTTP',
    downstream: 'stdio',
    baseline: 'direct-http',
    floor: ['direct-http', 'direct-stdio'],
  },
  { name: 'direct-sse', label: 'direct', client: 'legacy SSE', downstream: '—', floor: [] },
  {
    name: 'toolmesh-sse-stdio',
    label: 'toolmesh',
    client: 'legacy SSE',
    downstream: 'stdio',
    baseline: 'direct-sse',
    floor: ['direct-sse', 'direct-stdio'],
  },
  {
    name: 'mcp-hub',
    label: `mcp-hub ${mcpHubVersion()}`,
    client: 'legacy SSE',
    downstream: 'stdio',
    baseline: 'direct-sse',
    floor: ['direct-sse', 'direct-stdio'],
  },
];

export async function benchmarkOverhead({ folder, dataDir, calls, warmup, log }) {
  const opened = [];
  let opening = 'echo-http';
  /** Keeps what was opened for the path being opened, to close it (last opened first) when done. */
  const kept = (thing) => {
    opened.push({ path: opening, thing });
    return thing;
  };
  const errors = {};
  const orphans = [];
  let measured;
  try {
    const echoHttp = kept(await startEchoHttp());
    const stdioConfig = writeConfig(folder, 'echo-stdio', { echo: ECHO_STDIO });
    const httpConfig = writeConfig(folder, 'echo-http', { echo: { url: echoHttp.url } });
    /** toolmesh over stdio echo serves every HTTP client: its 2026-07-28 and legacy SSE paths reuse that process. */
    let stdioFront;
    const toolmeshHttp = async (config) => {
      const toolmesh = kept(await startToolmeshHttp({ config, cwd: folder, dataDir }));
      if (config === stdioConfig) stdioFront = toolmesh.url;
      return connectHttpClient(toolmesh.url);
    };
    const openers = {
      'direct-stdio': () => spawnStdioClient(ECHO_STDIO.command, ECHO_STDIO.args),
      'toolmesh-stdio': () => startToolmeshStdio({ config: stdioConfig, cwd: folder, dataDir }),
      'direct-http': () => connectHttpClient(echoHttp.url),
      'toolmesh-http-http': () => toolmeshHttp(httpConfig),
      'toolmesh-http-stdio': () => toolmeshHttp(stdioConfig),
      'toolmesh-http-stdio-modern': () => connectModernHttpClient(stdioFront),
      'mcp-proxy': async () => connectHttpClient(kept(await startMcpProxy(ECHO_STDIO)).url),
      'direct-sse': () => connectSseClient(echoHttp.url.replace(/\/mcp$/, '/sse')),
      'toolmesh-sse-stdio': () => connectSseClient(stdioFront.replace(/\/mcp$/, '/sse')),
      'mcp-hub': async () =>
        connectSseClient(kept(await startMcpHub({ folder, mcpServers: { echo: ECHO_STDIO } })).url),
    };
    const fns = {};
    for (const { name } of PATHS) {
      opening = name;
      log(`bench: connecting ${name}`);
      try {
        fns[name] = await echoCall(kept(await openers[name]()));
      } catch (error) {
        // A proxy that cannot run here is reported with its error, not fatal.
        errors[name] = error.message.split('\n').slice(0, 8).join('\n');
        log(`bench: ${name} could not run: ${errors[name]}`);
      }
    }
    log(`bench: ${calls} echo calls on each of ${Object.keys(fns).length} paths, interleaved`);
    measured = await interleaved(fns, { runs: calls, warmup });
  } finally {
    for (const { thing } of opened.toReversed()) {
      const left = await (thing.stop ? thing.stop() : thing.close()).catch(() => []);
      orphans.push(...(left ?? []));
    }
  }
  /** Node warnings printed by the processes a path started (its proxy), by name. */
  const warningsOf = (name) => {
    const tally = {};
    for (const { path, thing } of opened)
      if (path === name && thing.warnings)
        for (const [warning, times] of Object.entries(thing.warnings()))
          tally[warning] = (tally[warning] ?? 0) + times;
    return tally;
  };
  return {
    calls,
    warmup,
    paths: PATHS.map((p) => ({
      ...p,
      stats: measured[p.name]?.stats,
      error: errors[p.name],
      warnings: warningsOf(p.name),
      floorMs: p.floor.reduce((sum, leg) => sum + (measured[leg]?.stats.median ?? Number.NaN), 0),
    })),
    orphans,
  };
}
