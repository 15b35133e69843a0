import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { type RawMessage, type RawStdioPeer, spawnRawStdio } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { badMessage, CALL_LIMIT_MS } from './call-outcome.js';
import { type FuzzFixture, makeFuzzFixture } from './fuzz-fixture.js';
import { selected } from './fuzz-settings.js';
import { type FuzzTarget, targetNamed } from './fuzz-targets.js';
import { descendants, stillRunning } from './processes.js';
import {
  BEFORE_INITIALIZE,
  DISCOVER,
  type Era,
  INITIALIZE,
  INITIALIZED,
  type ProtocolCase,
  paramsIn,
  protocolCorpus,
} from './protocol-corpus.js';

let fixture: FuzzFixture;
let cases = 0;

beforeAll(async () => {
  fixture = await makeFuzzFixture();
});

afterAll(() => {
  process.stderr.write(`protocol fuzz: ${cases} cases sent\n`);
  const escapes = fixture.escapes();
  fixture.remove();
  expect(escapes).toEqual([]);
});

function shown(bytes: string | Buffer): string {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('latin1');
  return JSON.stringify(text.length > 160 ? `${text.slice(0, 80)}…(${text.length} bytes)` : text);
}

/** The answers (not notifications) that came after message `from`, up to the answer to `until`. */
function answersBetween(peer: RawStdioPeer, from: number, until: string): RawMessage[] {
  const later = peer.messages().slice(from);
  const end = later.findIndex((message) => message.id === until);
  return later.slice(0, end).filter((message) => !('method' in message));
}

/** What is wrong with an error answer to a client's mistake: the client's fault reported as the server's, or no help. */
function errorProblem(message: RawMessage): string | undefined {
  const error = message.error as { code?: unknown; message?: unknown } | undefined;
  if (!error) return undefined;
  if (error.code === ErrorCode.InternalError)
    return `an internal error for a client's mistake: ${JSON.stringify(error).slice(0, 300)}`;
  return badMessage(String(error.message ?? ''));
}

/** Sends one case and says what was wrong with how the server took it, or undefined. */
async function sendCase(peer: RawStdioPeer, sent: ProtocolCase, era: Era): Promise<string | undefined> {
  const from = peer.messages().length;
  await peer.write(sent.bytes);
  if (typeof sent.expect === 'object') {
    const answer = await peer.answerTo(sent.expect.id, CALL_LIMIT_MS).catch((error: Error) => error);
    if (answer instanceof Error) return answer.message;
    const problem = errorProblem(answer);
    if (problem) return `the answer is ${problem}`;
  }
  const ping = await peer
    .request('ping', paramsIn(era) as Record<string, unknown> | undefined, CALL_LIMIT_MS)
    .catch((error: Error) => error);
  if (ping instanceof Error) return `ping after it: ${ping.message}`;
  const list = await peer
    .request('tools/list', paramsIn(era) as Record<string, unknown> | undefined, CALL_LIMIT_MS)
    .catch((error: Error) => error);
  if (list instanceof Error || !Array.isArray((list.result as { tools?: unknown })?.tools))
    return `tools/list after it: ${list instanceof Error ? list.message : JSON.stringify(list).slice(0, 300)}`;
  const between = answersBetween(peer, from, ping.id as string);
  if (sent.expect === 'error' && !between.some((message) => message.id === null && 'error' in message))
    return `no error answer (id null) came for it; got ${JSON.stringify(between).slice(0, 300)}`;
  if (sent.expect === 'none' && between.length > 0)
    return `it should get no answer, but got ${JSON.stringify(between).slice(0, 300)}`;
  const problem = between.map(errorProblem).find((found) => found !== undefined);
  return problem && `an answer is ${problem}`;
}

/** Runs the corpus against one server; every problem names the case and its bytes. */
/** Opens the connection in its era: the 2025 handshake (after a few requests sent too early), or server/discover. */
async function open(peer: RawStdioPeer, target: FuzzTarget, era: Era, problems: string[]): Promise<void> {
  if (era === 'modern') {
    await peer.write(DISCOVER);
    const discovered = await peer.answerTo('discover', CALL_LIMIT_MS);
    if (!('result' in discovered))
      problems.push(`${target.name}: server/discover got ${JSON.stringify(discovered)}`);
    return;
  }
  for (const early of BEFORE_INITIALIZE) {
    await peer.write(early.bytes);
    const answer = await peer
      .answerTo((early.expect as { id: string }).id, CALL_LIMIT_MS)
      .catch((error) => error);
    if (answer instanceof Error) problems.push(`${target.name}, ${early.name}: ${answer.message}`);
  }
  await peer.write(INITIALIZE);
  await peer.answerTo('init', CALL_LIMIT_MS);
  await peer.write(INITIALIZED);
}

async function fuzzProtocol(target: FuzzTarget, era: Era): Promise<string[]> {
  const problems: string[] = [];
  const peer = spawnRawStdio(process.execPath, target.args, { env: target.env, cwd: target.cwd });
  await open(peer, target, era, problems);
  const tools = (
    await peer.request('tools/list', paramsIn(era) as Record<string, unknown> | undefined, CALL_LIMIT_MS)
  ).result as { tools: { name: string }[] };
  const tool = tools.tools[0]?.name ?? 'none';
  for (const sent of protocolCorpus(tool, era)) {
    cases++;
    const problem = await sendCase(peer, sent, era);
    if (problem) problems.push(`${target.name}, ${sent.name} ${shown(sent.bytes)}: ${problem}`);
    const exit = peer.exit();
    if (exit) {
      problems.push(
        `${target.name} exited (${exit.signal ?? exit.code}) after ${sent.name}:\n${peer.stderr().slice(-3000)}`,
      );
      return problems;
    }
  }
  const stray = peer.strayLines();
  if (stray.length > 0)
    problems.push(
      `${target.name} wrote ${stray.length} stdout lines that are not JSON-RPC, e.g. ${shown(stray[0] as string)}`,
    );
  const processes = [peer.pid as number, ...descendants(peer.pid as number)];
  await peer.close();
  const exit = peer.exit();
  if (exit?.code !== 0)
    problems.push(`${target.name} did not exit cleanly when stdin closed: ${JSON.stringify(exit)}`);
  const left = await stillRunning(processes);
  if (left.length > 0)
    problems.push(`${target.name} left processes running after stdin closed: ${left.join(', ')}`);
  return problems;
}

describe('raw bytes on stdin: every first-party server and the aggregator', () => {
  const servers = ['fs', 'git', 'code-graph', 'tickets', 'memory', 'feeds'];
  const runs: [string, Era][] = [...servers, 'aggregator', 'aggregator-default'].flatMap(
    (name): [string, Era][] => [
      [name, 'legacy'],
      [name, 'modern'],
    ],
  );
  for (const [name, era] of runs) {
    const revision = era === 'modern' ? '2026-07-28' : '2025';
    it.concurrent(`${name} (${revision}) answers each malformed input in JSON-RPC, keeps serving and writes nothing else to stdout`, async () => {
      if (!selected(name)) return;
      expect(await fuzzProtocol(targetNamed(fixture, name), era)).toEqual([]);
    }, 600_000);
  }
});
