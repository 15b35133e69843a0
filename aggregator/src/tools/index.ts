import { DISCOVERY_TOOLS } from './discovery.js';
import { exitPlanMode } from './modes.js';
import { todoRead, todoWrite } from './todo.js';
import { listWorkspaces } from './workspaces.js';

/** toolmesh's own tools, offered beside the registry's on every endpoint. */
export const AGGREGATOR_TOOLS = [...DISCOVERY_TOOLS, todoWrite, todoRead, exitPlanMode, listWorkspaces];
