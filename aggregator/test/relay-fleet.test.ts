// A 2026-07-28 call parked on one replica for its client's answer, retried through another: two
// real `toolmesh serve` replicas on one config, one Redis (a key prefix of their own) and one
// data directory. The retry is carried to the replica that holds the call while it lives; once
// that one is gone, the client is told the call was cut off and to call again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetRig, type Replica } from './fleet-rig.js';
import { fixture } from './harness.js';
import { answerText, roundTripCall } from './round-trip-call.js';

let rig: FleetRig;

beforeAll(async () => {
  rig = new FleetRig({ config: { mcpServers: { fixture: fixture('fixture') } } });
  await rig.startMany(2);
}, 120_000);
afterAll(() => rig?.dispose());

const mcp = (replica: Replica) => `${replica.origin}/mcp`;

/** Parks fixture__ask_user on `replica`: the question's key and the state to send back. */
async function parkOn(replica: Replica) {
  const first = await roundTripCall(mcp(replica), rig.token, 'fixture__ask_user', {});
  expect(first.result?.resultType, JSON.stringify(first)).toBe('input_required');
  const key = Object.keys(first.result?.inputRequests ?? {})[0] as string;
  return { key, requestState: first.result?.requestState as string };
}

describe('a parked call retried through another replica', () => {
  it('is resumed on the replica that holds it, and cut off once that one is gone', {
    timeout: 120_000,
  }, async () => {
    const [holder, other] = rig.replicas as [Replica, Replica];
    const parked = await parkOn(holder);
    const resumed = await roundTripCall(
      mcp(other),
      rig.token,
      'fixture__ask_user',
      {},
      {
        requestState: parked.requestState,
        inputResponses: { [parked.key]: { action: 'accept', content: { colour: 'teal' } } },
      },
    );
    expect(answerText(resumed), JSON.stringify(resumed)).toBe('accept: teal');

    const stranded = await parkOn(holder);
    holder.child.kill('SIGKILL');
    await new Promise((resolve) => holder.child.once('exit', resolve));
    const cut = await roundTripCall(
      mcp(other),
      rig.token,
      'fixture__ask_user',
      {},
      {
        requestState: stranded.requestState,
        inputResponses: { [stranded.key]: { action: 'accept', content: { colour: 'teal' } } },
      },
    );
    expect(cut.result?.isError, JSON.stringify(cut)).toBe(true);
    expect(answerText(cut)).toMatch(/the call was cut off.*Call it again without requestState/s);
  });
});
