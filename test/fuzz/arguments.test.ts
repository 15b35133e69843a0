import { appendFileSync } from 'node:fs';

import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { spawnStdioClient } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECTION_CLOSED, callTool, showArguments } from './call-outcome.js';
import { type FuzzFixture, makeFuzzFixture } from './fuzz-fixture.js';
import {
  CALL_LOG,
  CALLS_PER_TOOL,
  CALLS_PER_TOOL_VIA_AGGREGATOR,
  FUZZ_SEED,
  selected,
} from './fuzz-settings.js';
import { type FuzzTarget, targetNamed } from './fuzz-targets.js';
import { derivedSeed, Prng } from './prng.js';
import { descendants, stillRunning } from './processes.js';
import { ArgumentFuzzer, type Schema } from './schema-arguments.js';
import { SeenValues } from './seen-values.js';

let fixture: FuzzFixture;
const tally = { tools: 0, calls: 0, answers: new Map<string, number>() };

beforeAll(async () => {
  fixture = await makeFuzzFixture();
});

afterAll(() => {
  process.stderr.write(
    `argument fuzz: ${tally.calls} calls over ${tally.tools} tools (${[...tally.answers].map(([answer, count]) => `${count} ${answer}`).join(', ')}), FUZZ_SEED=${FUZZ_SEED}\n`,
  );
  const escapes = fixture.escapes();
  fixture.remove();
  expect(escapes).toEqual([]);
});

/**
 * Calls every tool of `target` with seeded arguments from its input schema and returns what went
 * wrong, each with what replays it. The server must answer every call and then exit, children and all.
 */
async function fuzzTarget(target: FuzzTarget, callsFor: (tool: Tool) => number): Promise<string[]> {
  const findings: string[] = [];
  const server = await spawnStdioClient(process.execPath, target.args, { env: target.env, cwd: target.cwd });
  const { tools } = await server.client.listTools();
  tally.tools += tools.length;
  const seen = new SeenValues();
  seen.learn(fixture.values.fields);
  for (const tool of tools) {
    const seed = derivedSeed(FUZZ_SEED, target.name, tool.name);
    const fuzzer = new ArgumentFuzzer(new Prng(seed), fixture.values, seen);
    for (let call = 0; call < callsFor(tool); call++) {
      const { kind, args } = fuzzer.arguments(tool.inputSchema as Schema);
      tally.calls++;
      const { answer, problem, result, message } = await callTool(server.client, tool.name, args);
      if (answer === 'result') seen.learn(result?.structuredContent);
      if (CALL_LOG)
        appendFileSync(
          CALL_LOG,
          `${JSON.stringify({ target: target.name, tool: tool.name, call, kind, answer, message, arguments: showArguments(args) })}
`,
        );
      tally.answers.set(answer, (tally.answers.get(answer) ?? 0) + 1);
      if (!problem) continue;
      findings.push(
        `${target.name} ${tool.name}, call ${call} (${kind}; FUZZ_SEED=${FUZZ_SEED} FUZZ_TARGET=${target.name}): ${problem}\n  arguments: ${showArguments(args)}`,
      );
      if (problem === CONNECTION_CLOSED) {
        findings.push(`${target.name} stderr:\n${server.stderr().slice(-3000)}`);
        return findings;
      }
    }
    await server.client.ping();
  }
  const processes = [server.pid as number, ...descendants(server.pid as number)];
  await server.close();
  const left = await stillRunning(processes);
  if (left.length > 0)
    findings.push(`${target.name} left processes running after stdin closed: ${left.join(', ')}`);
  return findings;
}

describe('every tool of every first-party server and the aggregator, over real stdio', () => {
  for (const name of ['fs', 'git', 'git-write', 'code-graph', 'tickets', 'memory', 'feeds', 'aggregator']) {
    it.concurrent(`${name} answers seeded arguments from its schemas without a crash, hang or unhelpful message`, async () => {
      if (!selected(name)) return;
      const target = targetNamed(fixture, name);
      // Through the aggregator, its own tools get the full count; the forwarded ones were fuzzed directly.
      const calls = (tool: Tool) =>
        tool._meta?.['toolmesh/server'] === undefined ? CALLS_PER_TOOL : CALLS_PER_TOOL_VIA_AGGREGATOR;
      expect(await fuzzTarget(target, calls)).toEqual([]);
    }, 600_000);
  }
});
