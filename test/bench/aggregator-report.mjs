// The aggregator's section of docs/benchmarks.md.
import { CALL_CPU_COLUMNS, callCpuRows } from './aggregator-call-cpu.mjs';
import { cliTimingRows } from './aggregator-cli-timings.mjs';
import { renderSharedStateSection } from './aggregator-shared-state.mjs';
import { count, table } from './markdown.mjs';
import { mib, micros, ms } from './stats.mjs';

const ratio = (value) => `${value.toFixed(2)}×`;
const added = (value) => `${value >= 0 ? '+' : '−'}${micros(Math.abs(value))}`;

const warningText = (tally) =>
  Object.entries(tally)
    .map(([name, times]) => `${name} ×${count(times)}`)
    .join(', ') || 'none';

function overheadRows(paths) {
  const byName = new Map(paths.map((p) => [p.name, p]));
  return paths.map((p) => {
    const name = p.baseline ? `**${p.label}**` : p.label;
    if (!p.stats) return [name, p.client, p.downstream, `could not run: ${p.error}`, '', '', '', '', ''];
    const base = byName.get(p.baseline)?.stats;
    const compared = base
      ? [
          ratio(p.stats.median / base.median),
          added(p.stats.median - base.median),
          added(p.stats.p99 - base.p99),
          ratio(p.stats.median / p.floorMs),
        ]
      : ['1×', '—', '—', '—'];
    return [name, p.client, p.downstream, `**${micros(p.stats.median)}**`, micros(p.stats.p99), ...compared];
  });
}

/** The sentences that say what the overhead table means, from its own figures. */
function overheadFindings(paths) {
  const at = (name) => paths.find((p) => p.name === name)?.stats;
  const floorOf = (name) => paths.find((p) => p.name === name)?.floorMs;
  const lines = [];
  const stdio = at('toolmesh-stdio');
  const directStdio = at('direct-stdio');
  if (stdio && directStdio) {
    lines.push(
      `- **stdio:** through toolmesh a call takes **${ratio(stdio.median / directStdio.median)}** a direct one at the median (${added(stdio.median - directStdio.median)}); the floor is two stdio round trips, ${ratio(floorOf('toolmesh-stdio') / directStdio.median)}, so toolmesh is at ${ratio(stdio.median / floorOf('toolmesh-stdio'))} its floor.`,
    );
  }
  const http = at('toolmesh-http-http');
  const directHttp = at('direct-http');
  if (http && directHttp) {
    lines.push(
      `- **Streamable HTTP end to end:** through toolmesh **${ratio(http.median / directHttp.median)}** a direct call (${added(http.median - directHttp.median)}), ${ratio(http.median / floorOf('toolmesh-http-http'))} its floor of two HTTP round trips.`,
    );
  }
  const modern = at('toolmesh-http-stdio-modern');
  const legacy = at('toolmesh-http-stdio');
  if (modern && legacy) {
    lines.push(
      `- **Protocol eras through toolmesh, Streamable HTTP, the echo server over stdio:** a 2026-07-28 client ${micros(modern.median)}, a 2025 session ${micros(legacy.median)} at the median: the modern path takes **${ratio(modern.median / legacy.median)}** the legacy one (issue 22: not slower${modern.median <= legacy.median ? ', met' : ', **not met**'}; p99 ${micros(modern.p99)} against ${micros(legacy.p99)}).`,
    );
  }
  const duels = [
    ['Streamable HTTP', 'toolmesh-http-stdio', 'mcp-proxy'],
    ['legacy SSE', 'toolmesh-sse-stdio', 'mcp-hub'],
  ].filter(([, ours, theirs]) => at(ours) && at(theirs));
  for (const [transport, ours, theirs] of duels) {
    const difference = at(ours).median - at(theirs).median;
    const label = paths.find((p) => p.name === theirs).label;
    lines.push(
      `- **Against ${label}, clients over ${transport}, the echo server over stdio:** toolmesh ${micros(at(ours).median)}, ${label} ${micros(at(theirs).median)} at the median: toolmesh is ${
        difference < 0 ? `**faster by ${micros(-difference)}**` : `**slower by ${micros(difference)}**`
      } (p99 ${micros(at(ours).p99)} against ${micros(at(theirs).p99)}).`,
    );
  }
  return lines.join('\n');
}

export function renderOverheadSection({ overhead }) {
  const failed = overhead.paths.filter((p) => p.error);
  const warned = overhead.paths.filter((p) => Object.keys(p.warnings).length > 0);
  return `### Proxy overhead

A trivial tool call, \`echo\` with a 4-byte text, on the bench's own echo server (test/bench/echo-server.mjs:
the plain SDK \`Server\` with one tool, over stdio, or on \`node:http\` with the SDK's Streamable HTTP transport in
its default stateful mode at \`/mcp\` and the legacy HTTP+SSE transport at \`/sse\`). Every path below is open at
once and gets ${count(overhead.calls)} timed calls after ${count(overhead.warmup)} unmeasured ones, interleaved call by call with
the order rotating each round, so that the noise of this shared machine falls on all paths alike. Each call thus
finds its path's processes idle, as a model's occasional tool calls do (back-to-back calls on one path come out
faster). Each time is the wall time of the SDK client's \`callTool\` in the bench process, answer checked.

- **direct**: the client talks to the echo server itself.
- **toolmesh**: \`toolmesh serve --config …\` with the echo server as its one server, over stdio (the bench
  spawns toolmesh, toolmesh spawns echo) or Streamable HTTP (\`--transport http --port 0\`; downstream either
  the echo server spawned over stdio or the echo HTTP server by \`url\`); the one over stdio echo is also called
  by the SDK's v2 client pinned to 2026-07-28 (no session; every other client here is in a 2025 session), and
  on its legacy HTTP+SSE endpoint (\`/sse\`), to compare with mcp-hub on the same transport. The tool is \`echo__echo\`.
- **mcp-proxy** (npm): serves one stdio server over Streamable HTTP and SSE; run as
  \`mcp-proxy --host 127.0.0.1 --port N -- node echo-server.mjs\` (it has no \`--port 0\`, so N is a port found free).
- **mcp-hub** (npm): an aggregator whose MCP endpoint (\`/mcp\`) speaks only the legacy HTTP+SSE transport
  (a GET event stream plus POST \`/messages\`), so it is compared with a direct legacy SSE call; run as
  \`mcp-hub --port N --config hub.json\` with the echo server over stdio. At start it fetches a marketplace
  catalogue from the internet unless its cache holds a fresh one; the bench seeds that cache in a temporary
  home, so it stays on loopback like everything else.

*× direct* and *added* compare with the direct call over the same client transport. An extra hop costs at least
one more full round trip, so each path's **floor** is the sum of the direct medians of its hops (client → proxy,
proxy → server); *× floor* says how close to it a path gets (1.00× is the floor itself).

${table(
  [
    'Path',
    'Client → proxy',
    'Proxy → server',
    'Median',
    'p99',
    '× direct',
    'Added (median)',
    'Added (p99)',
    '× floor',
  ],
  overheadRows(overhead.paths),
)}

${overheadFindings(overhead.paths)}
${
  warned.length
    ? `\nNode warnings on the stderr of the processes a path started: ${warned
        .map((p) => `${p.label} (${p.client} → ${p.downstream}): ${warningText(p.warnings)}`)
        .join('; ')}.\n`
    : ''
}${failed.length ? `\nCould not run here: ${failed.map((p) => `${p.label} (${p.error.split('\n')[0]})`).join('; ')}.\n` : ''}
${
  overhead.orphans.length === 0
    ? 'Every process was stopped with SIGTERM at the end and none left a child behind.'
    : `Left behind after SIGTERM (killed by the bench): pids ${overhead.orphans.join(', ')}.`
}

Reproduce this section alone, after \`pnpm build\`: \`node test/bench/run.mjs --only overhead\` (it rewrites only this section).`;
}

function throughputSection({ throughput }) {
  const first = throughput[0];
  const rows = throughput.map((t) => [
    t.name === 'toolmesh' ? '**toolmesh**' : t.name,
    t.downstream,
    `**${count(Math.round(t.callsPerSecond))}**`,
    `${count(t.calls)} in ${ms(t.wallMs)}`,
    micros(t.latency.median),
    micros(t.latency.p99),
    String(t.errors),
    t.memory
      ? `${mib(t.memory.rssKiB)} (+ ${mib(t.memory.childrenRssKiB)} in ${t.memory.children} children)`
      : '—',
    t.name === 'toolmesh' ? warningText(t.warnings) : '—',
  ]);
  return `### Throughput over Streamable HTTP

${first.sessions} client sessions open at once (each its own SDK client and \`Mcp-Session-Id\`), each making ${count(first.calls / first.sessions)}
\`echo\` calls back to back after one warm-up call, all sessions at the same time. toolmesh runs over Streamable
HTTP with the echo server downstream over stdio (one shared connection for every session) or over Streamable
HTTP; the direct row is the echo HTTP server under the same load. Any failed call fails the bench. The clients
run in the bench process on the same two cores as the servers, so a figure is that of the whole loop on this
machine, not of the server alone.

${table(
  [
    'Target',
    'Downstream',
    'Calls/s',
    'Calls',
    'Median latency',
    'p99 latency',
    'Errors',
    'toolmesh RSS, sessions open',
    'Node warnings on toolmesh stderr',
  ],
  rows,
)}`;
}

/** search_tool_bm25's index at scale; `node test/bench/run.mjs --only search` rewrites it alone. */
export function renderSearchSection({ search }) {
  const p50Met = search.query.median < 1;
  const buildMet = search.build.median < 200;
  return `### search_tool_bm25 over 10,000 tools

The index behind \`search_tool_bm25\` (\`ToolIndex\`, as exported by the built \`@toolmesh/aggregator\`), in
process. The registry is the 737 real tools of the discovery-eval catalogs (aggregator/test/fixtures/eval),
replicated as further deployments of each server (\`github\`, \`github-staging\`, \`github-eu\`, …) up to
${count(search.tools)} tools on ${count(search.servers)} servers, indexed as the aggregator indexes them (name \`<server>__<tool>\`, title,
description, input schema). Build time is ${search.build.runs} fresh builds of the whole index after one unmeasured;
query time is ${count(search.query.runs)} searches (limit ${search.limit}) cycling through the ${search.distinctQueries} real requests of the
development query set, after one unmeasured pass.

${table(
  ['Measure', 'Value', 'Target (issue 3)'],
  [
    [
      `Index build, ${count(search.tools)} tools, median`,
      `**${ms(search.build.median)}** (${ms(search.build.min)} – ${ms(search.build.max)})`,
      `under 200 ms: ${buildMet ? 'met' : '**not met**'}`,
    ],
    ['Query, p50', `**${micros(search.query.median)}**`, `under 1 ms: ${p50Met ? 'met' : '**not met**'}`],
    ['Query, p99', micros(search.query.p99), ''],
    ['Query, slowest', micros(search.query.max), ''],
    ['Searches with no hit', String(search.empty), ''],
  ],
)}

Reproduce this section alone, after \`pnpm build\`: \`node test/bench/run.mjs --only search\` (it rewrites only this section).`;
}

/** Start-up of `toolmesh serve`; `node test/bench/run.mjs --only startup` rewrites it alone (without the fs comparison). */
export function renderStartupSection({ startup }, fsColdStart) {
  const total = startup.memory.rssKiB + startup.memory.childrenRssKiB;
  const fsAlone = fsColdStart
    ? `; the fs server alone takes ${ms(fsColdStart.median)} the same way (above)`
    : '';
  return `### Start-up and memory

\`toolmesh serve\` with no config, from an empty temporary folder, over stdio: it runs every installed
first-party server package (here: ${startup.servers.join(', ')}), rooted at that folder. Time is from spawning toolmesh to
the answer to its first \`tools/list\` (spawn → initialize → tools/list, ${startup.tools} tools listed), a fresh process
each run, ${startup.runs} runs after one unmeasured${fsAlone}. The unmeasured run leaves the catalogue cache a user has
after any \`serve\`, so the first \`tools/list\` is answered from it while the servers start; they join at the end of the
start-up wait with \`notifications/tools/list_changed\` ("servers joined" below, and memory is VmRSS from /proc then,
for the toolmesh process and summed over its child processes).
The bin runs from V8's code cache (docs/aggregator.md, "Start-up"), kept here beside the bench's data: the unmeasured
run writes it, as a user's first run does. Load average (1 min) when this part began: ${startup.load ?? '?'}.

${table(
  ['Measure', 'Value', 'Target'],
  [
    [
      'Start-up to first tools/list, median',
      `**${ms(startup.median)}**`,
      `300 ms (issue 26): ${startup.p95 <= 300 ? 'met' : '**not met**'} at p95`,
    ],
    ['Start-up, p95', ms(startup.p95), ''],
    ['Start-up, range', `${ms(startup.min)} – ${ms(startup.max)}`, ''],
    ...(startup.initialize
      ? [
          [
            'Spawn to the answer to initialize, median (p95)',
            `**${ms(startup.initialize.median)}** (${ms(startup.initialize.p95)})`,
            `300 ms (issue 21): ${startup.initialize.median <= 300 ? 'met' : '**not met**'} at the median`,
          ],
        ]
      : []),
    ['Spawn to the servers joined (list_changed), median', ms(startup.joined.median), ''],
    ['toolmesh process RSS (VmRSS)', `**${mib(startup.memory.rssKiB)}**`, ''],
    [`Its ${startup.memory.children} child processes, RSS summed`, mib(startup.memory.childrenRssKiB), ''],
    ['Total', mib(total), ''],
  ],
)}`;
}

function callCpuSection({ callCpu }) {
  return `### CPU per proxied call

The same trivial \`echo\` call, back to back (each call sent when the last was answered), ${count(callCpu.rounds)} rounds
of ${count(callCpu.calls)} calls straight to the echo server and then through \`toolmesh serve\` to it (downstream over
stdio), the rounds alternating, after ${count(callCpu.warmup)} unmeasured calls each way (a long-running server's cost, once V8
has compiled the path; a few hundred calls leave it partly interpreted). The client reaches toolmesh over stdio or Streamable HTTP, in a 2025 session or in
2026-07-28, and each path's era runs end to end where the echo server can speak it: over stdio a 2026-07-28 client
calls the same tool on the SDK's v2 server (\`test/bench/echo-server-v2.mjs\`, both eras), directly and through
toolmesh, which then speaks 2026-07-28 to it; every other path has the v1 SDK's echo server (2025 only) behind
toolmesh, and over Streamable HTTP the direct call is a 2025 one. CPU is
user + system time from /proc of each process over a round, divided by its calls (median of the rounds): unlike
wall time, a loaded machine inflates it little. The echo server's own CPU per call is the yardstick (issue 26):
under toolmesh it is called at toolmesh's pace, so both of its figures are given. The wall time includes the
client's own CPU (this process's), given per path. On the 2025 stdio path a bare relay (\`test/bench/stdio-relay.mjs\`:
a Node process that pipes its stdin to an echo server's and that server's stdout back, reading nothing) is timed in
the same rounds with a 2025 client, as the floor of any proxy over stdio.

${table(CALL_CPU_COLUMNS, callCpuRows(callCpu))}`;
}

/** The CLI's one-shot timings; `node test/bench/run.mjs --only cli-timings` rewrites it alone. */
export function renderCliSection({ cli }) {
  return `### One-shot CLI use

Wall time of the built \`toolmesh\` with no config (every installed first-party server), from an empty temporary
folder, ${cli.initialize.runs / 2} runs of each, interleaved. \`serve\`: spawned with \`initialize\` already written to its stdin,
timed to the answer; then, with its servers up, timed from closing its stdin (or sending SIGTERM) to its exit.
\`search\` and \`call\`: spawn to exit, with the catalogue cached by an earlier run (\`call\` reads a one-line file).
CPU is the toolmesh process's own user + system time from /proc (at the answer, or last read before exit).
Load average (1 min) when this part began: ${cli.load.start}, when it ended: ${cli.load.end}, on ${cli.load.cores} cores.

${table(['Measure', 'Wall, median (p95)', 'CPU, user + system', 'Target (issue 21)'], cliTimingRows(cli))}`;
}

/** The audit log's section; `node test/bench/run.mjs --only audit` rewrites it alone. */
export function renderAuditSection({ audit }) {
  const added = audit.on.median - audit.off.median;
  return `### Audit log

What recording each \`tools/call\` costs, in process, with the built \`@toolmesh/aggregator\` and a state file
on this machine's disk (SQLite, WAL, \`synchronous = NORMAL\`: no fsync per commit). One record is a file read by a local
user, allowed, ok, with three arguments, one of them a token the writer redacts. **INSERT alone** is
\`SqliteState.recordAudit\` (one prepared INSERT); **whole writer** is what a call pays after it ran: the record
finished (secret redaction, canonical JSON, sha256) and written through the audit log. Each is timed
${count(audit.records)} times after ${count(audit.warmup)} unmeasured.

The call is \`echo__echo\` on the bench's echo server over stdio, from an in-memory SDK client, through two
aggregators in this one process: one with the audit on (the default), one with \`"audit": { "enabled": false }\`,
the documented way to turn it off. ${count(audit.calls)} timed calls each after ${count(audit.warmup)} unmeasured, interleaved call by call;
the bench checks that the first kept a record of every call and the second none.

${table(
  ['Measure', 'p50', 'p99', 'Slowest'],
  [
    [
      'Writing one record: INSERT alone',
      `**${micros(audit.insert.median)}**`,
      micros(audit.insert.p99),
      micros(audit.insert.max),
    ],
    [
      'Writing one record: whole writer',
      `**${micros(audit.writer.median)}**`,
      micros(audit.writer.p99),
      micros(audit.writer.max),
    ],
    ['Proxied call, audit on', `**${micros(audit.on.median)}**`, micros(audit.on.p99), micros(audit.on.max)],
    [
      'Proxied call, audit off',
      `**${micros(audit.off.median)}**`,
      micros(audit.off.p99),
      micros(audit.off.max),
    ],
  ],
)}

The audit adds **${added >= 0 ? '+' : '−'}${micros(Math.abs(added))}** to the median call (p99 ${micros(audit.on.p99)} against ${micros(audit.off.p99)}).

Reproduce this section alone, after \`pnpm build\`: \`node test/bench/run.mjs --only audit\` (it rewrites only this section).`;
}

export function renderAggregatorSection(run, { fsColdStart }) {
  return `## Aggregator

Every figure is measured from outside the built \`aggregator/dist/index.js\` (\`toolmesh serve\`), with real SDK
clients, real child processes and real sockets on 127.0.0.1 only. The machine has two shared, noisy cores, so
latencies are medians and 99th percentiles over many calls, and the paths compared run interleaved in the same
run. This part took ${Math.ceil(run.totalMs / 1000)} s.

${renderOverheadSection(run)}

${callCpuSection(run)}

${throughputSection(run)}

${renderSearchSection(run)}

${renderStartupSection(run, fsColdStart)}

${renderCliSection(run)}

${renderAuditSection(run)}

${renderSharedStateSection(run)}
`;
}
