import { existsSync } from 'node:fs';
import path from 'node:path';
import { isStdioServer, type ServerConfig } from '../config/schema.js';
import { findOnPath } from '../sandbox/find-bwrap.js';
import { startTimedOut } from './start-timeout.js';

/** What to do about a server that did not start: first a start that ran out of time, then by how it is reached. */
export function howToFix(config: ServerConfig, lastError: string | undefined): string {
  const check = whatToCheck(config);
  return startTimedOut(lastError)
    ? `if it is only slow to start (a first npx download, say), raise "connectTimeoutMs" in its entry; otherwise ${check}`
    : check;
}

/** What to check for a server that did not start, by how it is reached. */
function whatToCheck(config: ServerConfig): string {
  if (!isStdioServer(config))
    return `check that the URL ${config.url} is right, that the server there is running, and that its headers (auth) in the config are accepted`;
  const { command } = config;
  if (command.includes(path.sep)) {
    if (!existsSync(path.resolve(config.cwd ?? '.', command)))
      return `${command} does not exist: correct "command" in the config`;
  } else if (findOnPath(command, config.env.PATH ?? process.env.PATH) === undefined) {
    return `${command} was not found on PATH: install it, or give its full path as "command" in the config`;
  }
  return `check that \`${[command, ...config.args].join(' ')}\` runs on its own, and its env and args in the config`;
}
