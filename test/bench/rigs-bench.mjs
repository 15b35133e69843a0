// The rigs server's benchmarks, side by side with @playwright/mcp (the peer the issue names) in one
// run: both spawned over real stdio, driven by the real MCP SDK client, on the same Debian Chromium
// (/usr/bin/chromium: nothing is downloaded), on pages served from 127.0.0.1 in this process.
// Measured: the tool list's size in tokens, the first call including the browser's launch,
// navigate + snapshot on a small page, a long document and a huge one (time and the snapshot's
// tokens), and resident memory; plus the desktop rig's cold start.
// Tokens are counted with gpt-tokenizer (o200k_base), on the JSON of tools/list and on the text
// content of a snapshot answer. `node test/bench/rigs-bench.mjs` runs it alone and prints its section.
import { existsSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { spawnStdioClient } from '@toolmesh/core/testing';
import { encode } from 'gpt-tokenizer';
import { check } from './check.mjs';
import { count, table } from './markdown.mjs';
import { treeMemoryOf } from './processes.mjs';
import { runAloneWhenMain } from './run-alone.mjs';
import { median, ms } from './stats.mjs';

const RIGS_BIN = fileURLToPath(new URL('../../servers/rigs/dist/index.js', import.meta.url));
/** Its bin, found beside its package.json (the package exports no path to it). */
const PLAYWRIGHT_MCP = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@playwright/mcp/package.json')),
  'cli.js',
);
const CHROMIUM = '/usr/bin/chromium';
const COLD_RUNS = 3;
const WARM_RUNS = 5;
/** The targets. */
const TOOL_LIST_TARGET = 2500;
const FIRST_CALL_TARGET_MS = 1200;
const DESKTOP_TARGET_MS = 800;

/** A page like a reference manual: `sections` headings, each with a paragraph and a table of links. */
function manualPage(title, sections) {
  const body = Array.from({ length: sections }, (_, i) => {
    const rows = Array.from(
      { length: 4 },
      (_, r) => `<tr><td>item ${i}.${r}</td><td><a href="#s${i}-${r}">method_${i}_${r}</a></td></tr>`,
    ).join('');
    return `<h2 id="s${i}">Section ${i}</h2><p>Paragraph ${i} explains method_${i} with words about vectors, slices and capacity.</p><table>${rows}</table>`;
  }).join('');
  return `<!doctype html><title>${title}</title><nav><a href="/">Home</a></nav><main><h1>${title}</h1>${body}</main>`;
}

const PAGES = {
  small: `<!doctype html><title>Small</title><h1>Order form</h1><form><label>Name <input name="name"></label><label>Colour <select><option>Red</option><option>Blue</option></select></label><button>Order</button></form><a href="/long">Long</a>`,
  long: manualPage('Long document', 150),
  huge: manualPage('Huge reference page', 1500),
};

const tokens = (text) => encode(text).length;
const textOf = (result) =>
  (result.content ?? [])
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');

async function servePages() {
  const server = http.createServer((request, response) => {
    const name = (request.url ?? '/').slice(1) || 'small';
    const page = PAGES[name];
    if (!page) return response.writeHead(404).end('not found');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((r) => server.close(r)),
  };
}

/** How each server is started and asked to navigate and snapshot. */
function peers(origin, base) {
  return {
    rigs: {
      label: 'toolmesh-rigs',
      start: () =>
        spawnStdioClient(process.execPath, [RIGS_BIN, '--chromium', CHROMIUM, '--allow-origin', origin], {
          env: { TOOLMESH_DATA_DIR: path.join(base, 'rigs-data') },
        }),
      navigate: (client, url) =>
        client.callTool({ name: 'browser_use', arguments: { action: 'navigate', url } }),
      snapshot: (client) => client.callTool({ name: 'browser_use', arguments: { action: 'snapshot' } }),
    },
    playwright: {
      label: '@playwright/mcp',
      start: () =>
        spawnStdioClient(process.execPath, [
          PLAYWRIGHT_MCP,
          '--headless',
          '--isolated',
          '--browser',
          'chromium',
          '--executable-path',
          CHROMIUM,
          // As root Chromium's own sandbox cannot start; rigs drops it there too, and says so.
          ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
          '--output-dir',
          path.join(base, 'playwright-out'),
        ]),
      navigate: (client, url) => client.callTool({ name: 'browser_navigate', arguments: { url } }),
      snapshot: (client) => client.callTool({ name: 'browser_snapshot', arguments: {} }),
    },
  };
}

async function must(promise, what) {
  const result = await promise;
  check(!result.isError, `${what} failed: ${textOf(result).slice(0, 4000)}`);
  return result;
}

/** One fresh server per run: the first navigate, which launches the browser. */
async function firstCall(peer, url) {
  const client = await peer.start();
  try {
    const start = performance.now();
    await must(peer.navigate(client.client, url), `${peer.label} first navigate`);
    return performance.now() - start;
  } finally {
    await client.close();
  }
}

async function measurePeer(peer, origin, log) {
  const client = await peer.start();
  try {
    const { tools } = await client.client.listTools();
    const figures = { toolCount: tools.length, toolTokens: tokens(JSON.stringify(tools)), pages: {} };
    await must(peer.navigate(client.client, `${origin}/small`), `${peer.label} warm-up`);
    for (const name of Object.keys(PAGES)) {
      const times = [];
      let snapshotTokens = 0;
      for (let run = 0; run < WARM_RUNS; run++) {
        const start = performance.now();
        await must(peer.navigate(client.client, `${origin}/${name}`), `${peer.label} navigate ${name}`);
        const snapshot = await must(peer.snapshot(client.client), `${peer.label} snapshot ${name}`);
        times.push(performance.now() - start);
        snapshotTokens = tokens(textOf(snapshot));
      }
      figures.pages[name] = { medianMs: median(times), snapshotTokens };
      log(`rigs bench: ${peer.label} ${name}: ${ms(median(times))}, ${snapshotTokens} tokens`);
    }
    const memory = treeMemoryOf(client.pid);
    figures.rssMiB = (memory.rssKiB + memory.childrenRssKiB) / 1024;
    return figures;
  } finally {
    await client.close();
  }
}

/** The desktop rig's cold start: the first screenshot of a fresh server, Xvfb and openbox included. */
async function desktopColdStart(base) {
  const times = [];
  for (let run = 0; run < COLD_RUNS; run++) {
    const client = await spawnStdioClient(process.execPath, [RIGS_BIN], {
      env: { TOOLMESH_DATA_DIR: path.join(base, `desktop-${run}`) },
    });
    try {
      const start = performance.now();
      await must(
        client.client.callTool({ name: 'computer_use', arguments: { action: 'cursor_position' } }),
        'desktop cold start',
      );
      times.push(performance.now() - start);
    } finally {
      await client.close();
    }
  }
  return median(times);
}

export async function benchmarkRigs({ base, log }) {
  check(existsSync(CHROMIUM), `${CHROMIUM} is missing: install chromium (Debian)`);
  mkdirSync(base, { recursive: true });
  const pages = await servePages();
  try {
    const both = peers(pages.origin, base);
    const first = { rigs: [], playwright: [] };
    for (let run = 0; run < COLD_RUNS; run++) {
      // Alternating, so the machine's load falls on both alike.
      for (const name of run % 2 === 0 ? ['rigs', 'playwright'] : ['playwright', 'rigs']) {
        first[name].push(await firstCall(both[name], `${pages.origin}/small`));
      }
    }
    const rigs = await measurePeer(both.rigs, pages.origin, log);
    const playwright = await measurePeer(both.playwright, pages.origin, log);
    rigs.firstCallMs = median(first.rigs);
    playwright.firstCallMs = median(first.playwright);
    const desktopMs = await desktopColdStart(base);
    check(
      rigs.toolTokens <= TOOL_LIST_TARGET,
      `rigs' tool list is ${rigs.toolTokens} tokens, above the target of ${TOOL_LIST_TARGET}`,
    );
    return { rigs, playwright, desktopMs, chromium: CHROMIUM, loadAverage: os.loadavg()[0] };
  } finally {
    await pages.close();
  }
}

const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
const verdict = (ok) => (ok ? 'met' : '**missed**');

export function renderRigsSection({ rigs, playwright, desktopMs, chromium, loadAverage }) {
  const rows = [
    [
      'tools/list',
      `${rigs.toolCount} tools, ${count(rigs.toolTokens)} tokens`,
      `${playwright.toolCount} tools, ${count(playwright.toolTokens)} tokens`,
      ratio(rigs.toolTokens, playwright.toolTokens),
      `≤ ${count(TOOL_LIST_TARGET)} tokens: ${verdict(rigs.toolTokens <= TOOL_LIST_TARGET)}`,
    ],
    [
      'first call (launch + navigate, small page)',
      ms(rigs.firstCallMs),
      ms(playwright.firstCallMs),
      ratio(rigs.firstCallMs, playwright.firstCallMs),
      `≤ 1.2 s: ${verdict(rigs.firstCallMs <= FIRST_CALL_TARGET_MS)}`,
    ],
    ...Object.keys(PAGES).flatMap((name) => {
      const ours = rigs.pages[name];
      const theirs = playwright.pages[name];
      return [
        [
          `navigate + snapshot, ${name} page`,
          ms(ours.medianMs),
          ms(theirs.medianMs),
          ratio(ours.medianMs, theirs.medianMs),
          `not slower: ${verdict(ours.medianMs <= theirs.medianMs)}`,
        ],
        [
          `snapshot tokens, ${name} page`,
          count(ours.snapshotTokens),
          count(theirs.snapshotTokens),
          ratio(ours.snapshotTokens, theirs.snapshotTokens),
          name === 'small' ? '' : `≤ ⅓: ${verdict(ours.snapshotTokens * 3 <= theirs.snapshotTokens)}`,
        ],
      ];
    }),
    [
      'resident memory (server + browser)',
      `${rigs.rssMiB.toFixed(0)} MiB`,
      `${playwright.rssMiB.toFixed(0)} MiB`,
      ratio(rigs.rssMiB, playwright.rssMiB),
      '',
    ],
  ];
  return `## rigs server

\`node test/bench/run.mjs --only rigs\` (or \`node test/bench/rigs-bench.mjs\` to print without writing).
toolmesh-rigs and @playwright/mcp ${createRequire(import.meta.url)('@playwright/mcp/package.json').version}, each spawned over stdio and driven by the MCP SDK client in one run, both on ${chromium} (rigs with \`--chromium\`, playwright-mcp with \`--executable-path --headless --isolated\`), on pages served from 127.0.0.1: a small form, a long document (150 sections) and a huge reference page (1,500 sections, about 14,000 elements). First call: the median of ${COLD_RUNS} fresh servers each, alternating. Navigate + snapshot: the median of ${WARM_RUNS} runs on one server. Tokens: gpt-tokenizer (o200k_base) on the JSON of tools/list and on a snapshot answer's text; rigs answers within its default snapshot budget with a cursor for the rest, playwright-mcp returns the whole tree. Ratio: rigs ÷ playwright-mcp.

${table(['', 'toolmesh-rigs', '@playwright/mcp', 'ratio', 'target'], rows)}

Desktop rig cold start (first \`computer_use\` call of a fresh server: Xvfb, openbox, then the action): median ${ms(desktopMs)} of ${COLD_RUNS} (target ≤ 0.8 s: ${verdict(desktopMs <= DESKTOP_TARGET_MS)}).

The machine's 1-minute load average at the end of the run was ${loadAverage.toFixed(1)} on ${os.cpus().length} cores: absolute times on a loaded machine are long for both servers alike, so read the ratios.
`;
}

runAloneWhenMain(import.meta.url, 'rigs', benchmarkRigs, renderRigsSection);
