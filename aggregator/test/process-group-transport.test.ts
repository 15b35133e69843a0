import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProcessGroupTransport } from '../src/upstream/process-group-transport.js';
import {
  FIXTURE_SERVER,
  fixture,
  processesTagged,
  reapTagged,
  STUBBORN_SERVER,
  startHarness,
  until,
} from './harness.js';

const node = process.execPath;
let tag: string;

beforeEach(() => {
  tag = `tag-${randomUUID()}`;
});

afterEach(() => reapTagged(tag));

/** A client over `sh -c script`, and whether its connection has closed. */
async function connectThroughShell(script: string) {
  const transport = new ProcessGroupTransport({
    command: 'sh',
    args: ['-c', script],
    env: getDefaultEnvironment(),
  });
  const client = new Client({ name: 'test', version: '1.0.0' });
  const closed = { yes: false };
  client.onclose = () => {
    closed.yes = true;
  };
  await client.connect(transport);
  return { client, closed };
}

describe('a stdio server in its own process group', () => {
  it('is ended with all its group by close(), a process that ignores SIGTERM included', async () => {
    // `sh` ignores SIGTERM here and passes that on to the loop it starts; node resets it.
    const { client } = await connectThroughShell(
      `trap "" TERM; sh -c 'while :; do sleep 1; done' ${tag} & exec "${node}" "${STUBBORN_SERVER}" ${tag}`,
    );
    expect(await client.callTool({ name: 'ping' })).toMatchObject({ content: [{ text: 'pong' }] });
    expect(processesTagged(tag)).toHaveLength(2);
    await client.close();
    // SIGKILL has been sent when close() returns; the processes go a moment later.
    await until(() => processesTagged(tag).length === 0);
  });

  it('leaves nothing of its group behind when it exits on its own, so its connection closes', async () => {
    // The background server shares stdout: while it lives, the pipe stays open.
    const { closed } = await connectThroughShell(
      `"${node}" "${STUBBORN_SERVER}" ${tag} & exec "${node}" "${FIXTURE_SERVER}" ${tag}`,
    );
    await until(() => processesTagged(tag).length === 2);
    const leader = processesTagged(tag).find((pid) => pid === groupOf(pid));
    expect(leader).toBeDefined();
    process.kill(leader as number, 'SIGKILL');
    await until(() => closed.yes);
    await until(() => processesTagged(tag).length === 0);
  });

  it('ends the server once however many ask: a second close() waits for the first', async () => {
    const transport = new ProcessGroupTransport({
      command: node,
      args: [STUBBORN_SERVER, tag],
      env: getDefaultEnvironment(),
    });
    await transport.start();
    await until(() => processesTagged(tag).length === 1);
    let firstEnded = false;
    const first = transport.close().then(() => {
      firstEnded = true;
    });
    // The server outlives its stdin, so only the group's SIGTERM ends it, after the grace.
    await transport.close();
    expect(firstEnded).toBe(true);
    await first;
    await until(() => processesTagged(tag).length === 0);
  });

  it('sends each line its server writes to stderr to the log', async () => {
    const harness = await startHarness({
      mcpServers: {
        talky: fixture('talky', {
          command: 'sh',
          args: ['-c', `echo "warming up" >&2; echo "ready soon" >&2; exec "${node}" "${FIXTURE_SERVER}"`],
        }),
      },
    });
    try {
      const logged = (text: string) =>
        harness.logs.some((line) => line.includes('[talky]') && line.includes(text));
      await until(() => logged('warming up') && logged('ready soon'));
    } finally {
      await harness.close();
    }
  });
});

/** The process group of `pid`: field 5 of /proc/PID/stat, after the name, which may hold spaces. */
function groupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}
