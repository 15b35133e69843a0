/**
 * The one vocabulary of action classes shared by servers and the aggregator. A mode in the
 * aggregator allows or denies classes, so a class exists only when some mode must tell it apart.
 */
export const ACTION_CLASSES = [
  'read',
  'worktreeWrite',
  'vcsWrite',
  'ticketWrite',
  'memoryWrite',
  'networkEgress',
  'processSpawn',
  'packageInstall',
  'enclosureControl',
] as const;

export type ActionClass = (typeof ACTION_CLASSES)[number];

export function isActionClass(value: unknown): value is ActionClass {
  return typeof value === 'string' && (ACTION_CLASSES as readonly string[]).includes(value);
}

/** Keys under which a tool's policy facts travel in the `_meta` of its `tools/list` entry. */
export const META_KEYS = {
  actions: 'toolmesh/actions',
  requiresApproval: 'toolmesh/requiresApproval',
  workspaceScoped: 'toolmesh/workspaceScoped',
  /** In a forwarded call's request `_meta`: who is calling, as the aggregator authenticated them. */
  agent: 'toolmesh/agent',
  /** In a forwarded call's request `_meta`: the conversation it belongs to, for servers that keep per-conversation state. */
  conversation: 'toolmesh/conversation',
} as const;
