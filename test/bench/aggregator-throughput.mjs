// Throughput over Streamable HTTP: many client sessions at once, each calling `echo` back to back.
import { performance } from 'node:perf_hooks';
import { connectHttpClient } from '@toolmesh/core/testing';
import { ECHO_STDIO, startEchoHttp } from './aggregator-overhead.mjs';
import { check } from './check.mjs';
import { treeMemoryOf } from './processes.mjs';
import { summarize } from './stats.mjs';
import { startToolmeshHttp, writeConfig } from './toolmesh.mjs';

const TEXT = 'ping';

/**
 * Opens `sessions` sessions on `url`, then has each make `callsPerSession` calls of `tool` in a
 * row, all sessions at once. `whileOpen` runs after the calls, before the sessions close.
 */
async function measureThroughput({ url, tool, sessions, callsPerSession, whileOpen }) {
  const clients = await Promise.all(Array.from({ length: sessions }, () => connectHttpClient(url)));
  try {
    let errors = 0;
    let firstError;
    const times = [];
    const callOnce = async (client) => {
      const start = performance.now();
      try {
        const result = await client.call(tool, { text: TEXT });
        if (result.isError || result.content?.[0]?.text !== TEXT) throw new Error(JSON.stringify(result));
      } catch (error) {
        errors++;
        firstError ??= error.message;
      }
      times.push(performance.now() - start);
    };
    await Promise.all(clients.map(callOnce));
    times.length = 0;
    const start = performance.now();
    await Promise.all(
      clients.map(async (client) => {
        for (let i = 0; i < callsPerSession; i++) await callOnce(client);
      }),
    );
    const wallMs = performance.now() - start;
    check(errors === 0, `${errors} of the calls on ${url} failed: ${firstError}`);
    const memory = await whileOpen?.();
    return {
      sessions,
      calls: sessions * callsPerSession,
      wallMs,
      callsPerSecond: (sessions * callsPerSession * 1000) / wallMs,
      errors,
      latency: summarize(times),
      ...(memory && { memory }),
    };
  } finally {
    await Promise.allSettled(clients.map((client) => client.close()));
  }
}

/**
 * The same load on toolmesh over Streamable HTTP (its echo over stdio, then over Streamable HTTP)
 * and, for reference, on the echo server itself; toolmesh's memory is read with the sessions open.
 */
export async function benchmarkThroughput({ folder, dataDir, sessions, callsPerSession, log }) {
  const running = [];
  try {
    const echoHttp = await startEchoHttp();
    running.push(echoHttp);
    const targets = [
      { name: 'direct', downstream: '—', url: echoHttp.url, tool: 'echo' },
      { name: 'toolmesh', downstream: 'stdio', config: { echo: ECHO_STDIO } },
      { name: 'toolmesh', downstream: 'Streamable HTTP', config: { echo: { url: echoHttp.url } } },
    ];
    const results = [];
    for (const target of targets) {
      let toolmesh;
      if (target.config) {
        const config = writeConfig(folder, `throughput-${results.length}`, target.config);
        toolmesh = await startToolmeshHttp({ config, cwd: folder, dataDir });
        running.push(toolmesh);
      }
      log(
        `bench: ${sessions} sessions × ${callsPerSession} calls, ${target.name} (downstream ${target.downstream})`,
      );
      const measured = await measureThroughput({
        url: toolmesh?.url ?? target.url,
        tool: target.tool ?? 'echo__echo',
        sessions,
        callsPerSession,
        whileOpen: toolmesh && (() => treeMemoryOf(toolmesh.pid)),
      });
      results.push({
        name: target.name,
        downstream: target.downstream,
        ...measured,
        warnings: toolmesh?.warnings() ?? {},
      });
    }
    return results;
  } finally {
    for (const server of running.reverse()) await server.stop();
  }
}
