import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/**
 * What a server host and the process that spawned it say to each other over the host's stdio,
 * one JSON-RPC notification a line. Each hosted server is a connection of its own, named by the
 * spawner's `server` id; its MCP messages travel inside `message` notifications, parsed once.
 */
export const HOST_METHODS = {
  /** spawner → host: run `program` (a module exporting `program`, a ServerProgram) with `args`. */
  start: 'toolmesh/host/start',
  /** spawner → host: end that server. */
  stop: 'toolmesh/host/stop',
  /** both ways: one MCP message of that server. */
  message: 'toolmesh/host/message',
  /** host → spawner: the server is set up and serving. */
  started: 'toolmesh/host/started',
  /** host → spawner: what the server wrote to its stderr (log lines, errors). */
  output: 'toolmesh/host/output',
  /** host → spawner: the server has ended (stopped, or it could not start). */
  ended: 'toolmesh/host/ended',
} as const;

export const hostStartParams = z.object({
  server: z.string().min(1),
  program: z.string().min(1),
  args: z.array(z.string()),
});
export type HostStartParams = z.infer<typeof hostStartParams>;

export const hostServerParams = z.object({ server: z.string().min(1) });

export const hostMessageParams = z.object({
  server: z.string().min(1),
  message: z.custom<JSONRPCMessage>((value) => typeof value === 'object' && value !== null),
});

export const hostOutputParams = z.object({ server: z.string().min(1), text: z.string() });

/** A notification of the host protocol, ready to send. */
export function hostNotice(method: string, params: Record<string, unknown>): JSONRPCMessage {
  return { jsonrpc: '2.0', method, params };
}
