// Starts the conformance fixture, and `toolmesh serve --transport http` with the fixture as its
// one remote upstream, keeping the fixture's own tool and prompt names (`prefix: false`).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOP } from './doc-section.mjs';
import { startServer } from './server-process.mjs';

const FIXTURE = fileURLToPath(new URL('./fixture-server.mjs', import.meta.url));
export const AGGREGATOR_BIN = path.join(TOP, 'aggregator/dist/index.js');
export const UPSTREAM = 'conformance';

export function startFixture() {
  return startServer('the conformance fixture', [FIXTURE]);
}

/** Writes its config and data directory into `folder`; listens on a free loopback port. */
export function startToolmeshOver(fixtureUrl, folder) {
  const config = path.join(folder, 'toolmesh.json');
  // The conformance client sends no token, so authentication is off (allowed on loopback only).
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { [UPSTREAM]: { url: fixtureUrl, prefix: false } },
      auth: { required: false },
    }),
  );
  const dataDir = path.join(folder, 'data');
  mkdirSync(dataDir, { recursive: true });
  return startServer(
    'toolmesh serve',
    [AGGREGATOR_BIN, 'serve', '--config', config, '--transport', 'http', '--port', '0'],
    { TOOLMESH_DATA_DIR: dataDir },
  );
}
