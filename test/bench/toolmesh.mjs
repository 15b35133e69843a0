// Runs the built toolmesh aggregator (`toolmesh serve`) over stdio or Streamable HTTP.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnModernStdioClient, spawnStdioClient } from '@toolmesh/core/testing';
import { startProcess } from './processes.mjs';

/**
 * The bin of the workspace's @toolmesh/aggregator (dist/index.js beside its dist/aggregator.js),
 * or the one TOOLMESH_BIN names, to measure another build (the base commit's) in the same run.
 */
export const AGGREGATOR_BIN =
  process.env.TOOLMESH_BIN ??
  path.join(path.dirname(fileURLToPath(import.meta.resolve('@toolmesh/aggregator'))), 'index.js');

/**
 * Writes `{ mcpServers }` as a config file in `folder`; returns its path. HTTP authentication is
 * off (loopback only): the peers measured beside toolmesh have none, so like is compared with like.
 */
export function writeConfig(folder, name, mcpServers) {
  const file = path.join(folder, `${name}.json`);
  writeFileSync(file, JSON.stringify({ mcpServers, auth: { required: false } }, null, 2));
  return file;
}

/**
 * `toolmesh serve` over stdio, with `config` or (without) every installed first-party server;
 * its client speaks 2026-07-28 when `modern`, else opens a 2025 session.
 */
export function startToolmeshStdio({ config, cwd, dataDir, modern = false, bin = AGGREGATOR_BIN }) {
  return (modern ? spawnModernStdioClient : spawnStdioClient)(
    process.execPath,
    [bin, 'serve', ...(config ? ['--config', config] : []), '--log-level', 'warning'],
    { cwd, env: { TOOLMESH_DATA_DIR: dataDir } },
  );
}

/** `toolmesh serve --transport http --port 0`; resolves with its /mcp URL once it listens. */
export function startToolmeshHttp({ config, cwd, dataDir, bin = AGGREGATOR_BIN }) {
  return startProcess({
    command: process.execPath,
    args: [bin, 'serve', '--config', config, '--transport', 'http', '--port', '0'],
    cwd,
    env: { TOOLMESH_DATA_DIR: dataDir },
    ready: /listening on (http:\/\/\S+\/mcp)\b/,
  });
}
