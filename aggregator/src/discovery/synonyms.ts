import { tokenize } from '@toolmesh/bm25';
import { TOOL_LANGUAGE } from './tool-language.js';

/**
 * Words that people and tool authors use for the same action or thing. Each group is
 * general vocabulary of tool catalogues, not of any one server; a query term is expanded
 * to the other members of its groups, and so is a phrase of two terms ("pull request").
 */
const GROUPS: readonly (readonly string[])[] = [
  // actions
  ['create', 'add', 'new', 'make', 'insert'],
  ['remove', 'delete', 'drop', 'erase', 'destroy', 'wipe'],
  ['update', 'edit', 'modify', 'change', 'alter'],
  ['get', 'fetch', 'retrieve', 'read', 'obtain'],
  ['list', 'show', 'enumerate', 'display'],
  ['find', 'search', 'lookup', 'locate', 'query'],
  ['run', 'execute', 'exec', 'invoke', 'evaluate', 'eval'],
  ['stop', 'kill', 'terminate', 'cancel', 'abort', 'halt'],
  ['start', 'launch', 'begin', 'spawn'],
  ['send', 'post', 'publish'],
  ['save', 'write', 'store', 'persist'],
  ['copy', 'duplicate', 'clone'],
  ['move', 'relocate'],
  ['comment', 'reply', 'respond'],
  ['press', 'hit', 'tap'],
  ['wait', 'pause', 'sleep'],
  ['close', 'shut'],
  ['select', 'pick', 'choose'],
  ['undo', 'revert', 'rollback'],
  ['login', 'signin', 'authenticate'],
  ['logout', 'signout'],
  ['summarize', 'summary'],
  ['navigate', 'go', 'visit', 'browse'],
  ['count', 'total'],
  ['check', 'verify', 'validate', 'inspect', 'audit'],
  ['complete', 'finish', 'done'],
  ['deploy', 'release', 'ship', 'rollout'],
  ['crawl', 'scrape'],
  ['print', 'output'],
  ['remember', 'memory', 'recall'],
  // things
  ['issue', 'ticket', 'bug'],
  ['pull request', 'pr', 'merge request', 'mr'],
  ['repo', 'repository'],
  ['directory', 'folder', 'dir'],
  ['document', 'doc', 'documentation'],
  ['message', 'msg'],
  ['organization', 'org'],
  ['database', 'db'],
  ['configuration', 'config', 'settings', 'preferences'],
  ['information', 'info', 'details', 'metadata'],
  ['image', 'picture', 'photo', 'img'],
  ['screenshot', 'screen capture'],
  ['video', 'recording', 'screencast'],
  ['label', 'tag'],
  ['user', 'member', 'person', 'people'],
  ['team', 'group'],
  ['email', 'mail'],
  ['website', 'site', 'webpage'],
  ['url', 'link'],
  ['error', 'exception', 'crash', 'failure'],
  ['environment', 'env'],
  ['webhook', 'hook'],
  ['transcript', 'captions', 'subtitles'],
  ['terminal', 'shell', 'console'],
  ['bulk', 'batch', 'multiple'],
  ['sprint', 'iteration', 'cycle'],
  ['modal', 'dialog', 'popup'],
  ['price', 'cost', 'pricing'],
  // abbreviations of products and languages
  ['kubernetes', 'k8s'],
  ['javascript', 'js'],
  ['typescript', 'ts'],
  ['markdown', 'md'],
  ['postgres', 'postgresql', 'pg'],
  ['github', 'gh'],
  ['azure devops', 'ado'],
];

// Built at the first search, not at import: every start of the CLI loads this module, and
// tokenizing each group costs more than all the rest of it.
let expansions: Map<string, string[]> | undefined;

function expansionsByTerm(): Map<string, string[]> {
  const built = new Map<string, string[]>();
  for (const group of [...GROUPS, ...TOOL_LANGUAGE.map(({ words }) => words)]) {
    for (const member of group) {
      const terms = tokenize(member);
      if (terms.length === 0 || terms.length > 2) continue;
      const key = terms.join(' ');
      const others = group.filter((other) => other !== member);
      built.set(key, [...new Set([...(built.get(key) ?? []), ...others])]);
    }
  }
  return built;
}

/** The other ways of saying a tokenized query term or two-term phrase; empty when there are none. */
export function synonymsOf(term: string): readonly string[] {
  expansions ??= expansionsByTerm();
  return expansions.get(term) ?? [];
}
