import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Aggregator } from '../aggregator.js';
import type { AuditRecord } from '../audit/audit-record.js';

/**
 * What `GET /metrics` tells Prometheus about one replica: tool calls (count, failures, latency)
 * per server and tool, sessions, approvals waiting, upstream restarts, and the fleet's
 * forwards and adoptions.
 */
export class FleetMetrics {
  readonly registry = new Registry();
  readonly forwards: Counter<'outcome'>;
  readonly adoptions: Counter;
  readonly #calls: Counter<'server' | 'tool' | 'outcome'>;
  readonly #errors: Counter<'server' | 'tool'>;
  readonly #latency: Histogram<'server' | 'tool'>;

  constructor(aggregator: Aggregator) {
    const registers = [this.registry];
    this.#calls = new Counter({
      name: 'toolmesh_tool_calls_total',
      help: 'tools/call requests that reached policy, by server, tool and how they ended.',
      labelNames: ['server', 'tool', 'outcome'],
      registers,
    });
    this.#errors = new Counter({
      name: 'toolmesh_tool_call_errors_total',
      help: 'tools/call requests that did not end ok (refused, isError, timeout, crash, unavailable…).',
      labelNames: ['server', 'tool'],
      registers,
    });
    this.#latency = new Histogram({
      name: 'toolmesh_tool_call_duration_seconds',
      help: 'From a call’s arrival to its answer, approval wait included.',
      labelNames: ['server', 'tool'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.forwards = new Counter({
      name: 'toolmesh_fleet_forwards_total',
      help: 'Requests for a session another replica owns, passed to it; outcome ok or failed.',
      labelNames: ['outcome'],
      registers,
    });
    this.adoptions = new Counter({
      name: 'toolmesh_fleet_adoptions_total',
      help: 'Sessions this replica took over from a replica that died or left.',
      registers,
    });
    new Gauge({
      name: 'toolmesh_sessions',
      help: 'Client sessions this replica serves now.',
      registers,
      collect() {
        this.set(aggregator.sessionCount);
      },
    });
    new Gauge({
      name: 'toolmesh_approvals_pending',
      help: 'Calls waiting for a person’s approval.',
      registers,
      async collect() {
        this.set((await aggregator.state.pendingApprovals(Date.now()).catch(() => [])).length);
      },
    });
    const restarts = new Counter({
      name: 'toolmesh_upstream_restarts_total',
      help: 'Times a downstream server went down and was restarted, by server.',
      labelNames: ['server'],
      registers,
    });
    const lastState = new Map<string, string>();
    aggregator.upstreams.on('changed', () => {
      for (const upstream of aggregator.upstreams.list()) {
        if (upstream.state === 'restarting' && lastState.get(upstream.name) !== 'restarting')
          restarts.inc({ server: upstream.name });
        lastState.set(upstream.name, upstream.state);
      }
    });
    aggregator.callObservers.add((record) => this.#observe(record));
  }

  /** Labels every series with the replica that reports it. */
  replica(id: string): void {
    this.registry.setDefaultLabels({ replica: id });
  }

  #observe(record: AuditRecord): void {
    const labels = { server: record.server, tool: record.tool };
    this.#calls.inc({ ...labels, outcome: record.outcome });
    if (record.outcome !== 'ok') this.#errors.inc(labels);
    this.#latency.observe(labels, record.durationMs / 1000);
  }
}
