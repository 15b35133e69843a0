import { READ_ONLY_ANNOTATIONS } from '@toolmesh/core';
import { z } from 'zod';
import { defineTool } from './define.js';

/** What a model needs of a rig, kept lean: the list is read on every turn. */
const rigView = z.object({
  id: z.string(),
  surface: z.string(),
  engine: z.string(),
  status: z.string(),
  display: z.string().optional(),
  controller: z.string().optional(),
  notes: z.array(z.string()),
  startedAt: z.string(),
  idleSeconds: z.number(),
});

const probe = z.object({ surface: z.string(), ready: z.boolean(), detail: z.string() });

export const rigList = defineTool({
  name: 'rig_list',
  title: 'List rigs',
  description:
    'The workspace’s rigs, and whether each surface (browser, desktop, mobile, ios) can start here.',
  capability: 'read',
  input: z.object({}),
  output: z.object({ rigs: z.array(rigView), surfaces: z.array(probe) }),
  annotations: READ_ONLY_ANNOTATIONS,
  actions: ['read'],
  workspaceScoped: true,
  render: ({ rigs, surfaces }) =>
    [
      rigs.length === 0 ? 'no rigs' : `${rigs.length} rig(s):`,
      ...rigs.map(
        (rig) =>
          `${rig.id} ${rig.surface}/${rig.engine} ${rig.status}${rig.display ? ` ${rig.display}` : ''} idle ${rig.idleSeconds}s since ${rig.startedAt}${rig.notes.length > 0 ? ` (${rig.notes.join('; ')})` : ''}`,
      ),
      'surfaces:',
      ...surfaces.map(
        (surface) => `${surface.surface}: ${surface.ready ? 'ready' : 'unavailable'}: ${surface.detail}`,
      ),
    ].join('\n'),
  async handle(_args, context) {
    const { rigs } = context.engine;
    const surfaces = (['browser', 'desktop', 'mobile', 'ios'] as const).map((surface) => {
      const { ready, detail } = rigs.probes.answer(surface);
      return { surface, ready, detail };
    });
    const listed = rigs.list(context.workspace).map(({ displaySize, lastUsedAt: _, ...rig }) => ({
      ...rig,
      ...(displaySize && { display: `${displaySize.width}×${displaySize.height}` }),
    }));
    return { rigs: listed, surfaces };
  },
});

export const rigClose = defineTool({
  name: 'rig_close',
  title: 'Close a rig',
  description: 'Destroy a rig: its processes end and its profile, downloads and files are deleted.',
  capability: 'rigs',
  input: z.object({ rig_id: z.string().min(1).max(40).describe('The rig to close, from rig_list.') }),
  output: z.object({ closed: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  actions: ['enclosureControl'],
  workspaceScoped: true,
  render: ({ closed }) => `closed ${closed}: its processes ended and its folder was deleted`,
  async handle({ rig_id }, context) {
    await context.engine.rigs.close(context.workspace, rig_id);
    return { closed: rig_id };
  },
});
