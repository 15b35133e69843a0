import type { ActionClass } from '@toolmesh/core';

/** Tool-name globs and action classes; a tool matches by its exposed or its own name. */
export interface RuleSet {
  tools: string[];
  actions: ActionClass[];
}

export interface ModeDefinition {
  description?: string;
  /** When given, only what it names is allowed (an allowlist); otherwise everything not denied. */
  allow?: RuleSet;
  deny: RuleSet;
  /** Calls that run only once a person approves them. */
  confirm: RuleSet;
  /** The mode an approved exit_plan_mode switches to. */
  exitTo?: string;
}

const none: RuleSet = { tools: [], actions: [] };

/** Ticket verbs that hand work out or open it; planning must not do them (seed 002). */
const TICKET_DISPATCH = ['create_ticket', 'assign_ticket', 'reassign_ticket', 'delegate_ticket'];

export const BUILT_IN_MODES: Record<string, ModeDefinition> = {
  chat: { description: 'Everything.', deny: none, confirm: none },
  plan: {
    description:
      'Think and plan: no changes to the work tree or version control, no processes, installs or enclosure control, and no new or handed-out tickets. Memory, todos, ticket comments and completion verbs are allowed; exit_plan_mode asks a person to leave.',
    deny: {
      tools: TICKET_DISPATCH,
      actions: ['worktreeWrite', 'vcsWrite', 'processSpawn', 'packageInstall', 'enclosureControl'],
    },
    confirm: none,
    exitTo: 'chat',
  },
  review: {
    description:
      'Review: read-only context, communication and every ticket verb including create and assign; no work-tree or version-control writes.',
    allow: { tools: [], actions: ['read', 'networkEgress', 'ticketWrite', 'memoryWrite'] },
    deny: { tools: [], actions: ['worktreeWrite', 'vcsWrite'] },
    confirm: none,
  },
  orchestrate: {
    description:
      'Orchestrate: search and read, and create, delegate and relate tickets; no work-tree writes.',
    allow: {
      tools: ['create_ticket', 'delegate_ticket', 'ticket_relation'],
      actions: ['read', 'networkEgress'],
    },
    deny: { tools: [], actions: ['worktreeWrite'] },
    confirm: none,
  },
};

/** Memory tools of the memory server (issue 9's contract). */
const MEMORY_TOOLS = [
  'search_memory',
  'propose_fact',
  'supersede_fact',
  'propose_policy',
  'supersede_policy',
  'list_policies',
  'list_memory_domains',
  'record_observation',
  'get_my_notes',
  'update_my_notes',
  'remember',
  'consolidate_memory',
  'harmonize_memory',
  'list_memory_conflicts',
];

/** The code-graph server's read tools. */
const CODE_GRAPH_READ_TOOLS = [
  'search_code',
  'code_symbol',
  'code_callers',
  'code_callees',
  'code_impact',
  'code_trace',
  'repo_map',
  'read_symbol',
  'index_status',
];

/** Allowed in every mode, whatever its lists say; approval a tool requires still applies. */
export const ALWAYS_ALLOWED: RuleSet = {
  tools: [
    'search_tool_bm25',
    'list_my_tools',
    'call_tool',
    'todo_write',
    'todo_read',
    'exit_plan_mode',
    'list_workspaces',
    ...MEMORY_TOOLS,
    ...CODE_GRAPH_READ_TOOLS,
  ],
  actions: [],
};
