import { frameUntrusted, type ToolContext, toolDefiner } from '@toolmesh/core';
import { z } from 'zod';
import type { Caller, RigsEngine } from '../rigs/rigs-engine.js';

/** What the tools of one MCP session share: the server's rigs, and the session's own key. */
export interface RigsSession {
  rigs: RigsEngine;
  /** Stands for the conversation when the request carries no `toolmesh/conversation`. */
  session: string;
}

export const defineTool = toolDefiner<RigsSession>();

/** The rig a call reuses: the workspace's, for the aggregator's conversation or this MCP session. */
export function callerOf(context: ToolContext<RigsSession>): Caller {
  return {
    workspace: context.workspace,
    conversation: context.conversation ?? context.engine.session,
    starting: (what) => void context.progress(0, undefined, what).catch(() => undefined),
  };
}

/** Driving a machine starts processes, reaches the network and changes the machine's state. */
export const USE_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
} as const;

export const rigIdArg = z
  .string()
  .min(1)
  .max(40)
  .optional()
  .describe('A rig from rig_list; leave out to reuse (or start) this conversation’s rig.');

/** Kept bare: it is listed with every use tool, whose description says what comes back. */
export const useOutput = z.object({
  rig_id: z.string(),
  tab: z.string().optional(),
  notes: z.array(z.string()),
  content: z.string(),
  truncated: z.boolean().optional(),
  nextCursor: z.string().optional(),
  blockedByBudget: z.boolean().optional(),
  minimumRequiredBytes: z.number().optional(),
});

export type UseOutput = z.infer<typeof useOutput>;

/** Frames what came from a machine; nothing is framed when nothing came. */
export function framed(text: string, source: string): string {
  return text === '' ? '' : frameUntrusted(text, source);
}

export function renderUse(output: UseOutput): string {
  const head = [`rig ${output.rig_id}${output.tab ? ` tab ${output.tab}` : ''}`, ...output.notes].join('\n');
  const paging = output.truncated ? `\n(truncated; nextCursor: ${output.nextCursor ?? 'none'})` : '';
  return `${head}${output.content ? `\n${output.content}` : ''}${paging}`;
}
