import { setTimeout as sleep } from 'node:timers/promises';
import type { Aggregator } from '../aggregator.js';

/** How long the servers get to leave on their own when toolmesh exits. */
const EXIT_GRACE_MS = 250;

/**
 * Stops the aggregator before toolmesh exits, waiting for its servers at most EXIT_GRACE_MS: a
 * server still leaving then is ended by the orphan watchdog, which outlives toolmesh and sends
 * SIGTERM to every group still running once toolmesh is gone, then SIGKILL.
 */
export async function stopPromptly(aggregator: Aggregator): Promise<void> {
  await Promise.race([aggregator.stop(), sleep(EXIT_GRACE_MS)]);
  await aggregator.state.close().catch(() => undefined);
}
