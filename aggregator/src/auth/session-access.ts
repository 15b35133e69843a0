import type { Principal } from './authenticator.js';
import { AuthRefusal } from './authenticator.js';

/**
 * The mode and workspace a token's session gets: what the URL asks for, when the token may
 * use it. A token limited to one workspace is bound to it; one limited to several must name one.
 */
export function sessionAccess(
  principal: Principal,
  asked: { mode: string; workspace?: string },
): { mode: string; workspace?: string } {
  const { modes, workspaces } = principal;
  if (modes && !modes.includes(asked.mode))
    throw new AuthRefusal(
      403,
      `Token ${principal.identity} may not use ${asked.mode} mode; it may use ${modes.join(', ')}. Connect to /mcp/<mode> with one of those.`,
    );
  if (!workspaces) return asked;
  if (asked.workspace === undefined) {
    if (workspaces.length === 1) return { ...asked, workspace: workspaces[0] as string };
    throw new AuthRefusal(
      403,
      `Token ${principal.identity} is limited to workspaces ${workspaces.join(', ')}: name one with ?workspace=<id>.`,
    );
  }
  if (!workspaces.includes(asked.workspace))
    throw new AuthRefusal(
      403,
      `Token ${principal.identity} may not use workspace ${asked.workspace}; it may use ${workspaces.join(', ')}.`,
    );
  return asked;
}
