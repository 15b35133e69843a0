/**
 * Words tools use for one action or thing, each group gathered from how tools are named and
 * described across MCP server catalogues, never from requests people or models wrote: `seenIn`
 * keeps where each group's words were found (`<package or repository>: <tool>`), so a group can
 * be checked and argued with. Kept apart from the general synonym table, whose provenance is
 * plain English; both expand a query term to the rest of its group.
 */
export interface ToolLanguageGroup {
  words: readonly string[];
  seenIn: readonly string[];
}

export const TOOL_LANGUAGE: readonly ToolLanguageGroup[] = [
  {
    // Setting uncommitted work aside: git's stash, JetBrains' and GitMaster's shelves.
    words: ['stash', 'shelve', 'park'],
    seenIn: [
      '@cyanheads/git-mcp-server: git_stash',
      'ver0-project/mcps mcp-git: stash',
      'GitMaster (VS Code extension MCP): gitmaster_shelves_list',
    ],
  },
  {
    // A second checkout of one repository.
    words: ['worktree', 'second checkout', 'working copy'],
    seenIn: [
      '@cyanheads/git-mcp-server: git_worktree',
      'ben-rogerson/git-worktree-toolbox: create workspace (an isolated worktree)',
      'a git MCP server in use: git_worktree_add',
    ],
  },
  {
    words: ['geocode', 'coordinates', 'latitude', 'longitude', 'lat long', 'lat lng', 'latlng'],
    seenIn: [
      '@modelcontextprotocol/server-google-maps: maps_geocode, maps_reverse_geocode',
      '@mapbox/mcp-server: ForwardGeocodeTool, ReverseGeocodeTool',
      'X-McKay/geocode-mcp: get_coordinates',
      'meirm/MCP-Geo: geocode_location, reverse_geocode',
    ],
  },
  {
    words: ['elevation', 'altitude'],
    seenIn: ['@modelcontextprotocol/server-google-maps: maps_elevation'],
  },
  {
    // Issues under issues.
    words: ['sub issue', 'subissue', 'subtask', 'sub task', 'child issue', 'parent issue'],
    seenIn: [
      '@tacticlaunch/mcp-linear: linear_convertIssueToSubtask',
      'chuks-qua/github-issues-mcp-server: add_sub_issue, list_sub_issues, get_parent_issue',
      'github/github-mcp-server: sub_issue_write, get_sub_issues',
      'Redmine MCP: create_subtask, get_child_issues, set_parent_issue',
    ],
  },
  {
    // The work that can be picked up now: nothing blocks it.
    words: ['ready', 'next', 'unblocked', 'actionable', 'workon', 'pickup'],
    seenIn: [
      '@toolmesh/server-tickets: list_ready_tickets ("no unresolved blocker")',
      'HamStudy/taskdriver-mcp: get_next_task, peek_next_task',
      'fuego-wtf/graphyn-code: get_next_task ("Retrieve ready tasks by priority")',
      'driangle/taskmd: next (task recommendation)',
    ],
  },
  {
    words: ['blame', 'annotate', 'authorship'],
    seenIn: [
      '@cyanheads/git-mcp-server: git_blame ("line authorship")',
      'Subversion and Mercurial: annotate',
    ],
  },
  {
    // Bringing a commit from one branch to another.
    words: ['cherry pick', 'cherrypick', 'backport'],
    seenIn: [
      '@cyanheads/git-mcp-server: git_cherry_pick',
      'Austen0305/CryptoOrchestrator git MCP list: git_cherry_pick',
    ],
  },
  {
    words: ['snooze', 'mute', 'ignore', 'silence'],
    seenIn: [
      '@sentry/mcp-server: update_issue (status "ignored")',
      'a Datadog tool set: datadog_mute_monitor ("temporarily suppress notifications")',
      'an Alertmanager-style MCP tool: mute an alert',
    ],
  },
  {
    words: ['cron', 'schedule', 'scheduled', 'recurring'],
    seenIn: [
      '@cloudflare/mcp-server-cloudflare: cron_create, cron_list, cron_update',
      '@sanity/mcp-server: schedule_release',
    ],
  },
  {
    words: ['emulate', 'simulate', 'throttle'],
    seenIn: ['chrome-devtools-mcp: emulate (network and CPU throttling, geolocation, user agent)'],
  },
  {
    // What a customer pays for, again and again: the tools say subscription, people say billing.
    words: ['subscription', 'billing'],
    seenIn: [
      '@stripe/mcp: list_subscriptions, update_subscription, cancel_subscription',
      'terminaldotshop/terminal-sdk-js mcp-server: delete_subscription ("Cancel a subscription")',
      'mongodb-industry-solutions/agentic-mcp-demo: billing_service ("subscribe to" an add-on)',
    ],
  },
];
