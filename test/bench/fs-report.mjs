// The fs server's section of docs/benchmarks.md.
import { count, table } from './markdown.mjs';
import { mib, ms } from './stats.mjs';

const range = (s) => `${ms(s.min)} – ${ms(s.max)}`;

export function renderFsSection(run) {
  const { tree, searches, read, list, coldStart, memory } = run;
  const searchRows = searches.map((s) => [
    s.name === 'paged' ? 'literal, paged' : s.name,
    `\`${s.marker.pattern}\``,
    `${count(s.marker.lines)} in ${count(s.marker.files)} files`,
    s.calls === 1 ? '1 (whole result fits)' : `${s.calls} (nextCursor until done)`,
    `**${ms(s.toolmesh.median)}** (${range(s.toolmesh)})`,
    `\`grep ${s.grepFlags}\` **${ms(s.grep.median)}** (${range(s.grep)})`,
    `**${(s.toolmesh.median / s.grep.median).toFixed(1)}×**`,
  ]);
  const runsOf = (name) => searches.find((s) => s.name === name)?.toolmesh.runs;

  return `## fs server

Every figure is measured from outside: the built \`servers/fs/dist/index.js\` is spawned over real stdio and
driven by the real MCP SDK client (\`spawnStdioClient\` from \`@toolmesh/core/testing\`), so each time includes
JSON-RPC framing, argument validation, the tool's structured and text output, and the client's parsing. Latency
is wall time of the client call; each figure is the median of the runs shown, after one unmeasured warm-up run,
with the fastest and slowest run in brackets.

### Data

A seeded generator (test/bench/tree.mjs) writes the same tree on every run into a temporary folder:
${count(tree.files)} files in ${count(tree.directories)} folders (${count(tree.entries)} entries, ${(tree.bytes / 1024 ** 2).toFixed(1)} MiB, ${count(tree.lines)} lines),
as 20 packages \`pkgNN/src/<area>/<sub>/<name>.<ext>\` of TypeScript, JavaScript, Python, Markdown, JSON and
text files with source-like lines, 10–160 lines each. Marker lines are planted at random places in known
numbers, with as many near misses again that must not match; the vocabulary cannot match them otherwise. There is
no .gitignore, no skipped folder (node_modules, dist…), no binary and no denied file, so toolmesh and grep
search exactly the same files. Generating it took ${ms(run.generateMs)}. The server's state goes to a temporary
TOOLMESH_DATA_DIR; everything is deleted at the end.

### search_text against grep

\`search_text\` (case-sensitive, \`path: "tree"\`, \`maxTokens: ${run.maxTokens}\`) against \`grep -rnF\` (literal) or
\`grep -rnE\` (regex) over the same tree in the same run, interleaved run by run, ${runsOf('literal')} runs each
(${runsOf('paged')} for the paged search). grep's output is read to the end through a pipe and its lines counted.
Both must report exactly the planted number of matching lines, and \`search_text\` must have scanned all
${count(tree.files)} files, or the bench fails.

The literal and regex patterns are chosen so that the whole result fits in one ${run.maxTokens}-byte answer
(\`truncated: false\` in a single call), so one call covers the whole tree. The paged search has more matches
than one answer holds, and its time is every call, following \`nextCursor\` until the search is exhausted.

${table(['Search', 'Pattern', 'Matching lines', 'toolmesh calls', 'toolmesh', 'grep', 'toolmesh / grep'], searchRows)}

### read_file

A ${(read.bytes / 1024 ** 2).toFixed(0)} MiB log-like UTF-8 text file (${count(read.lines)} lines), \`maxTokens: ${run.maxTokens}\`, ${read.whole.runs} runs.

${table(
  ['Read', 'Calls', 'Median', 'Range'],
  [
    [
      'Whole file, following nextCursor (content checked equal to the file)',
      String(read.whole.calls),
      `**${ms(read.whole.median)}**`,
      range(read.whole),
    ],
    [
      `One page (first ${count(read.page.lines)} lines, ${count(read.page.bytes)} bytes of content)`,
      '1',
      `**${ms(read.page.median)}**`,
      range(read.page),
    ],
  ],
)}

### list_dir

Recursive \`list_dir\` (\`maxDepth: 20\`, \`limit: 5000\`, \`maxTokens: ${run.maxTokens}\`) of the ${count(tree.entries)}-entry tree, ${list.one.runs} runs.
\`limit\` is at most 5000 entries per request and the cursor pages within those, so one recursive request
cannot list the whole tree; the three rows are one call, one request paged to its limit, and the whole tree
covered by a shallow listing of the top folder followed by one paged recursive request per package.

${table(
  ['Listing', 'Calls', 'Entries', 'Median', 'Range'],
  [
    [
      'One call (first page of one request)',
      '1',
      count(list.one.entries),
      `**${ms(list.one.median)}**`,
      range(list.one),
    ],
    [
      'One request, paged with nextCursor to its 5000-entry limit',
      String(list.limit.calls),
      count(list.limit.entries),
      `**${ms(list.limit.median)}**`,
      range(list.limit),
    ],
    [
      'Whole tree: top folder, then each package paged',
      String(list.tree.calls),
      count(list.tree.entries),
      `**${ms(list.tree.median)}**`,
      range(list.tree),
    ],
  ],
)}

### Cold start and memory

Cold start is the time from spawning \`node servers/fs/dist/index.js --root …\` to the answer to its first
\`tools/list\` (spawn → initialize → tools/list, ${coldStart.toolCount} tools), a fresh process each run, ${coldStart.runs} runs.
Memory is the server process's resident set (VmRSS, and the peak VmHWM) from /proc/<pid>/status; search_text
runs in a worker thread of that process, so the peak after the searches includes the workers.

${table(
  ['Measure', 'Value'],
  [
    ['Cold start to first tools/list, median', `**${ms(coldStart.median)}**`],
    ['Cold start, p95', ms(coldStart.p95)],
    ['Cold start, range', range(coldStart)],
    ['RSS after start (VmRSS)', `**${mib(memory.atStart.rssKiB)}**`],
    ['RSS after the search benchmark (VmRSS)', `**${mib(memory.afterSearch.rssKiB)}**`],
    ['Peak RSS by then (VmHWM)', mib(memory.afterSearch.hwmKiB)],
  ],
)}
`;
}
