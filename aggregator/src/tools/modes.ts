import { rawResult, ToolError } from '@toolmesh/core';
import { z } from 'zod';
import { OWN_TOOL_NAMES } from '../registry/naming.js';
import { awaitingApproval } from '../session-server/audited-tool-call.js';
import { askApproval } from '../session-server/authorize.js';
import { defineTool } from './define.js';

export const exitPlanMode = defineTool({
  name: OWN_TOOL_NAMES.exitPlanMode,
  title: 'Ask to leave plan mode',
  description:
    'Asks a person to end plan mode so the plan can be carried out. Give the plan; the mode changes only if the person approves.',
  capability: 'modes',
  input: z.object({
    plan: z.string().min(1).max(20_000).describe('The plan to carry out, for the person who decides.'),
  }),
  output: z.object({ mode: z.string(), changed: z.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  actions: ['read'],
  render: (output) =>
    output.changed ? `Approved: the session is now in ${output.mode} mode.` : `Still in ${output.mode} mode.`,
  async handle({ plan }, { engine, signal }) {
    const { backend, session, audit } = engine;
    const from = session.mode;
    const to = backend.policy.table.definition(from)?.exitTo;
    const refuse = (message: string) => {
      audit.ended('refused', message);
      return new ToolError(message, 'refused');
    };
    if (!to) throw refuse(`This session is in ${from} mode, which exit_plan_mode does not leave.`);
    // The operator chose the modes a token may use; a person's approval cannot widen them.
    if (session.allowedModes && !session.allowedModes.includes(to))
      throw refuse(
        `This session's token may not use ${to} mode (it may use ${session.allowedModes.join(', ')}), so it stays in ${from} mode. The operator can connect with a token that may.`,
      );
    const arguments_ = { plan, switchTo: to };
    audit.decided(
      { tool: OWN_TOOL_NAMES.exitPlanMode, server: 'toolmesh', arguments: arguments_ },
      'confirm',
      'exit_plan_mode always asks a person',
    );
    const outcome = await askApproval(backend, session, {
      session: session.id,
      identity: session.identity,
      mode: from,
      tool: OWN_TOOL_NAMES.exitPlanMode,
      server: 'toolmesh',
      arguments: arguments_,
      reason: `leaving ${from} mode for ${to} mode lets the session change things`,
      signal,
    });
    if ('asked' in outcome) return rawResult(awaitingApproval(audit, outcome));
    audit.approved(outcome.status);
    if (!outcome.approved) throw refuse(outcome.message);
    await backend.setSessionMode(session, to);
    return { mode: to, changed: true };
  },
});
