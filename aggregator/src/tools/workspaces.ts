import { z } from 'zod';
import { OWN_TOOL_NAMES } from '../registry/naming.js';
import { instanceOf } from '../workspaces/instances.js';
import { defineTool } from './define.js';

export const listWorkspaces = defineTool({
  name: OWN_TOOL_NAMES.listWorkspaces,
  title: 'List workspaces',
  description:
    'The workspaces this session can work in: id, name, roots and the servers that serve each. Workspace-scoped tools take one of these ids as workspace_id, unless the session is bound to one workspace.',
  capability: 'workspaces',
  input: z.object({}),
  output: z.object({
    bound: z
      .string()
      .optional()
      .describe('The workspace this session is bound to; its calls need no workspace_id.'),
    workspaces: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        roots: z.array(z.string()),
        servers: z.array(z.string()),
      }),
    ),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  actions: ['read'],
  render: (output) =>
    [
      ...(output.bound ? [`This session works in ${output.bound}.`] : []),
      ...output.workspaces.map(
        (workspace) =>
          `${workspace.id} — ${workspace.name}: ${workspace.roots.join(', ')} (servers: ${workspace.servers.join(', ') || 'none'})`,
      ),
    ].join('\n'),
  async handle(_input, { engine }) {
    const { backend, session } = engine;
    const configured = [
      ...new Set(backend.upstreams.list().map((upstream) => instanceOf(upstream.name).server)),
    ];
    const visible = backend.workspaces.workspaces.filter(
      (workspace) => session.workspace === undefined || workspace.id === session.workspace,
    );
    return {
      ...(session.workspace && { bound: session.workspace }),
      workspaces: visible.map((workspace) => ({
        id: workspace.id,
        name: workspace.name,
        roots: workspace.roots,
        servers: workspace.servers ?? configured,
      })),
    };
  },
});
