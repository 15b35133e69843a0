// One quick comparison, run on its own (`node test/bench/protocol-eras.mjs` after `pnpm build`):
// a trivial call to toolmesh-fs over Streamable HTTP by a 2026-07-28 client (no session: each
// request is served by a server made for it) and by a 2025 client (one session, looked up by
// Mcp-Session-Id on every request), interleaved so that the machine's noise falls on both alike.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectHttpClient, connectModernHttpClient, spawnHttpServer } from '@toolmesh/core/testing';
import { interleaved, micros } from './stats.mjs';

const RUNS = Number(process.env.RUNS ?? 500);
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
    { '2026-07-28 (no session)': call(modern), '2025 (session)': call(legacy) },
    { runs: RUNS, warmup: 50 },
  );
  console.log(`toolmesh-fs stat_file over Streamable HTTP, ${RUNS} calls each, interleaved`);
  for (const [name, { stats: s }] of Object.entries(measured)) {
    console.log(`${name.padEnd(24)} median ${micros(s.median)}  p95 ${micros(s.p95)}  p99 ${micros(s.p99)}`);
  }
  await modern.close();
  await legacy.close();
} finally {
  await server.close();
  rmSync(root, { recursive: true, force: true });
}
