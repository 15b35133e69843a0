import { frameUntrusted, type ToolContext, ToolError, toolDefiner, withContent } from '@toolmesh/core';
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

/**
 * A string of at most `max` characters. The bound is checked but kept out of the listed schema
 * (a refinement is not listed): it only stops abuse, and the tool list is read on every turn.
 */
export const boundedString = (max: number) =>
  z.string().refine((value) => value.length <= max, { message: `at most ${max} characters` });

export const rigIdArg = boundedString(40)
  .optional()
  .describe('From rig_list; default: this conversation’s rig.');

/** A screen position in pixels: a whole number, checked without listing bounds (see boundedString). */
export const pixel = z.number().refine((value) => Number.isInteger(value) && value >= 0 && value <= 99_999, {
  message: 'a whole number of pixels, 0 or more',
});

/** `count` pixels, such as [x, y]; the count is checked, not listed. */
export const pixels = (count: number) =>
  z.array(pixel).refine((values) => values.length === count, { message: `${count} numbers` });

/** A number from `min` to `max`, checked, not listed. */
export const within = (min: number, max: number) =>
  z.number().refine((value) => value >= min && value <= max, { message: `from ${min} to ${max}` });

/** The field an action needs, or an error naming it. */
export function need<Args extends { action: string }, K extends keyof Args>(
  args: Args,
  field: K,
): NonNullable<Args[K]> {
  const value = args[field];
  if (value === undefined) throw new ToolError(`\`${String(field)}\` is required for action ${args.action}.`);
  return value as NonNullable<Args[K]>;
}

/**
 * Runs `perform` on the rig `find` picks (the caller's, or `rig_id`'s), and says which rig it was:
 * the one lookup the browser and desktop tools share.
 */
export async function onRig<M, A>(
  find: (act: (machine: M, rigId: string) => Promise<A>) => Promise<A>,
  perform: (machine: M, rigId: string) => Promise<A>,
): Promise<{ rigId: string; answer: A }> {
  let rigId = '';
  const answer = await find((machine, id) => {
    rigId = id;
    return perform(machine, id);
  });
  return { rigId, answer };
}

/** A use tool's result: its output, with the machine's screenshot (one image, JPEG unless said) when it took one. */
export function useResult<O extends UseOutput>(
  output: O,
  image: Buffer | undefined,
  mimeType = 'image/jpeg',
) {
  return image ? withContent(output, [{ type: 'image', data: image.toString('base64'), mimeType }]) : output;
}

/** Kept bare: it is listed with every use tool, whose description says what comes back. */
export const useOutput = z.object({
  rig_id: z.string(),
  notes: z.array(z.string()),
  content: z.string(),
});

/** A browser's answers also name the tab, and snapshots and text page within a budget. */
export const browserOutput = useOutput.extend({
  tab: z.string(),
  truncated: z.boolean().optional(),
  nextCursor: z.string().optional(),
  blockedByBudget: z.boolean().optional(),
  minimumRequiredBytes: z.number().optional(),
});

export type UseOutput = z.infer<typeof useOutput> & Partial<z.infer<typeof browserOutput>>;

/** Frames what came from a machine; nothing is framed when nothing came. */
export function framed(text: string, source: string): string {
  return text === '' ? '' : frameUntrusted(text, source);
}

export function renderUse(output: UseOutput): string {
  const head = [`rig ${output.rig_id}${output.tab ? ` tab ${output.tab}` : ''}`, ...output.notes].join('\n');
  const paging = output.truncated ? `\n(truncated; nextCursor: ${output.nextCursor ?? 'none'})` : '';
  return `${head}${output.content ? `\n${output.content}` : ''}${paging}`;
}

/** What a desktop or device action gives back: rigs' notes, text from the machine, at most one image. */
export interface MachineAnswer {
  notes: string[];
  body: string;
  image?: Buffer;
  imageType?: string;
}

/** The fields every machine tool (computer_use, mobile_use, ios_use) lists alike. */
export const MACHINE_TOOL = {
  output: useOutput,
  annotations: USE_ANNOTATIONS,
  workspaceScoped: true,
  render: renderUse,
} as const;

/**
 * A machine tool's call: the rig `find` picks, the action `perform` does on it, and the answer as
 * the tool's result, the machine's text framed as coming from `surface` rig <id>.
 */
export async function answerOnRig<M, A extends MachineAnswer>(
  surface: string,
  find: (act: (machine: M, rigId: string) => Promise<A>) => Promise<A>,
  perform: (machine: M) => Promise<A>,
) {
  const { rigId, answer } = await onRig(find, perform);
  return useResult(
    { rig_id: rigId, notes: answer.notes, content: framed(answer.body, `${surface} rig ${rigId}`) },
    answer.image,
    answer.imageType,
  );
}
