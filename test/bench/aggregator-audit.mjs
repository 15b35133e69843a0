// What the audit log costs a call, in process, with the built @toolmesh/aggregator: writing one
// record (the SQLite INSERT alone, and the whole writer: redaction, digest, INSERT), and a
// proxied call with the audit on against the same call with `audit.enabled: false`.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SqliteState } from '@toolmesh/aggregator';
import { check } from './check.mjs';
import { echoCall, startInProcess } from './in-process-aggregator.mjs';
import { interleaved, summarize } from './stats.mjs';

/** A typical record: a file read by a local user, allowed, ok. */
const ARGUMENTS = {
  path: 'src/session-server/forward.ts',
  maxTokens: 4000,
  token: 'ghp_R2d2C3poR2d2C3poR2d2C3poR2d2C3po1234',
};

async function timeInto(times, fn) {
  const start = performance.now();
  await fn();
  times.push(performance.now() - start);
}

function startOver(folder, name, enabled) {
  return startInProcess(SqliteState.open(path.join(folder, `audit-${name}.sqlite`)), {
    audit: { enabled, retentionDays: 30 },
  });
}

export async function benchmarkAudit({ folder, records: count, calls, warmup, log }) {
  log(`bench: audit, ${count} records written, then ${calls} proxied calls with the audit on and off`);
  const on = await startOver(folder, 'on', true);
  const off = await startOver(folder, 'off', false);
  try {
    const audit = on.aggregator.audit;
    const subject = { identity: 'local:bench', session: 'bench', mode: 'chat' };
    const finished = () => {
      const call = audit.open(subject);
      call.decided(
        { tool: 'fs__read_file', server: 'fs', workspace: 'default', arguments: ARGUMENTS },
        'allow',
        'mode chat allows everything',
      );
      call.ended('ok');
      return call.record();
    };

    const sample = finished();
    const insertTimes = [];
    for (let i = 0; i < warmup; i++) await on.state.recordAudit(sample);
    for (let i = 0; i < count; i++) await timeInto(insertTimes, () => on.state.recordAudit(sample));

    const writerTimes = [];
    for (let i = 0; i < warmup; i++) await audit.write(finished());
    for (let i = 0; i < count; i++)
      await timeInto(writerTimes, async () =>
        check((await audit.write(finished())) === undefined, 'an audit write failed'),
      );

    const rowsBefore = (await on.state.auditRecords({ limit: 1_000_000 })).length;
    const timed = await interleaved({ on: echoCall(on), off: echoCall(off) }, { runs: calls, warmup });
    const rowsAfter = (await on.state.auditRecords({ limit: 1_000_000 })).length;
    check(
      rowsAfter - rowsBefore === calls + warmup,
      `the audit kept ${rowsAfter - rowsBefore} of ${calls + warmup} calls`,
    );
    check((await off.state.auditRecords({ limit: 1 })).length === 0, 'the audit wrote records while off');
    return {
      records: count,
      warmup,
      insert: summarize(insertTimes),
      writer: summarize(writerTimes),
      calls,
      on: timed.on.stats,
      off: timed.off.stats,
    };
  } finally {
    await on.stop();
    await off.stop();
  }
}
