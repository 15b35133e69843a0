import { tokenize } from '@toolmesh/bm25';
import { describe, expect, it } from 'vitest';
import type { IndexedTool } from '../src/discovery/indexed-tool.js';
import { NameCoverage } from '../src/discovery/name-coverage.js';
import { parseToolQuery } from '../src/discovery/query-syntax.js';
import { rewriteQuery } from '../src/discovery/rewrite-query.js';
import { synonymsOf } from '../src/discovery/synonyms.js';
import { READ_CHARACTERS, READ_WORDS, tellingPart } from '../src/discovery/telling-part.js';
import { ToolIndex } from '../src/discovery/tool-index.js';
import { TOOL_LANGUAGE } from '../src/discovery/tool-language.js';
import { termExpansions } from '../src/discovery/verb-senses.js';
import { evalRegistry } from './discovery-eval/eval-set.js';

const TOOLS: IndexedTool[] = [
  {
    name: 'github__create_issue',
    server: 'github',
    tool: 'create_issue',
    description: 'Create a new issue in a GitHub repository.',
    inputSchema: {
      type: 'object',
      properties: { owner: { type: 'string', description: 'Repository owner' }, title: { type: 'string' } },
    },
  },
  {
    name: 'github__list_pull_requests',
    server: 'github',
    tool: 'list_pull_requests',
    description: 'List pull requests in a GitHub repository.',
  },
  {
    name: 'linear__createIssue',
    server: 'linear',
    tool: 'createIssue',
    description: 'Create an issue in Linear.',
  },
  {
    name: 'linear__deleteIssue',
    server: 'linear',
    tool: 'deleteIssue',
    description: 'Delete a Linear issue.',
  },
  {
    name: 'fs__read_file',
    server: 'fs',
    tool: 'read_file',
    title: 'Read file',
    description: 'Read the complete contents of a file.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Location of the file on disk' } },
    },
  },
  {
    name: 'browser__press_key',
    server: 'browser',
    tool: 'press_key',
    description: 'Press a key on the keyboard.',
    inputSchema: {
      type: 'object',
      properties: { key: { type: 'string', enum: ['Enter', 'Escape', 'ArrowLeft'] } },
    },
  },
];

function indexOf(tools: IndexedTool[] = TOOLS): ToolIndex {
  const index = new ToolIndex();
  for (const tool of tools) index.upsert(tool);
  return index;
}

const names = (hits: { name: string }[]) => hits.map((hit) => hit.name);

describe('ToolIndex', () => {
  it('finds tools by the words of their name, description and parameters', () => {
    const index = indexOf();
    expect(names(index.search('read a file'))[0]).toBe('fs__read_file');
    expect(names(index.search('pull requests'))[0]).toBe('github__list_pull_requests');
    expect(names(index.search('disk location', 5))).toContain('fs__read_file');
    expect(names(index.search('escape'))[0]).toBe('browser__press_key');
  });

  it('understands synonyms and abbreviations', () => {
    const index = indexOf();
    expect(names(index.search('open PRs on gh'))[0]).toBe('github__list_pull_requests');
    expect(names(index.search('remove a ticket in linear'))[0]).toBe('linear__deleteIssue');
    expect(names(index.search('hit enter'))[0]).toBe('browser__press_key');
  });

  it('reads a leading verb in its verb sense and weighs what the request wants over why', () => {
    const index = indexOf([
      ...TOOLS,
      {
        name: 'github__update_issue',
        server: 'github',
        tool: 'update_issue',
        description: 'Update an issue in a GitHub repository.',
        inputSchema: { type: 'object', properties: { state: { type: 'string', enum: ['open', 'closed'] } } },
      },
      {
        name: 'db__apply_upgrade',
        server: 'db',
        tool: 'apply_upgrade',
        description: 'Apply an upgrade to the database.',
      },
      {
        name: 'db__make_backup',
        server: 'db',
        tool: 'make_backup',
        description: 'Make a backup of the database.',
      },
    ]);
    expect(names(index.search('open a GitHub ticket: the toggle does not persist'))[0]).toBe(
      'github__create_issue',
    );
    // Each tool matches one word equally well; the one the request names first wins.
    expect(names(index.search('a backup before the upgrade', 2))).toEqual([
      'db__make_backup',
      'db__apply_upgrade',
    ]);
    expect(names(index.search('the upgrade after a backup', 2))).toEqual([
      'db__apply_upgrade',
      'db__make_backup',
    ]);
  });

  it('lifts the tools of a server the request names', () => {
    const index = indexOf();
    expect(names(index.search('new issue in linear', 2))).toEqual([
      'linear__createIssue',
      'linear__deleteIssue',
    ]);
    expect(names(index.search('new issue on github', 1))).toEqual(['github__create_issue']);
  });

  it('puts a tool first when the query is its exposed or original name', () => {
    const index = indexOf();
    expect(names(index.search('linear__deleteIssue', 1))).toEqual(['linear__deleteIssue']);
    expect(names(index.search('createIssue', 1))).toEqual(['linear__createIssue']);
    const [exact, next] = index.search('create_issue', 2);
    expect(exact!.name).toBe('github__create_issue');
    expect(exact!.score).toBeGreaterThan(next!.score);
  });

  it('puts first the tool whose name says the whole of a keyword query, over longer descriptions', () => {
    // Real catalogues, where BM25F alone ranked a sibling whose description repeats the words first.
    const index = new ToolIndex();
    for (const entry of evalRegistry()) index.upsert(entry);
    const first = (query: string) => index.search(query, 1)[0]?.name;
    expect(first('github get pull request files')).toBe(
      '_modelcontextprotocol_server-github__get_pull_request_files',
    );
    expect(first('confluence create page')).toBe('mcp-atlassian__create_confluence_page');
    expect(first('list pdf files')).toBe('_modelcontextprotocol_server-pdf__list_pdfs');
  });

  it('keeps to the servers a server: filter names, and lists them all when nothing else is asked', () => {
    const index = indexOf();
    expect(names(index.search('server:linear create issue'))).toEqual([
      'linear__createIssue',
      'linear__deleteIssue',
    ]);
    expect(names(index.search('create issue server:git'))).toEqual(['github__create_issue']);
    expect(names(index.search('server:linear', 10))).toEqual(['linear__createIssue', 'linear__deleteIssue']);
    expect(index.search('server:nowhere read file')).toEqual([]);
  });

  it('follows upserts and removals', () => {
    const index = indexOf();
    expect(index.size).toBe(TOOLS.length);
    index.upsert({ ...TOOLS[4]!, description: 'Fetch the bytes of an image.' });
    expect(index.size).toBe(TOOLS.length);
    expect(names(index.search('image bytes'))[0]).toBe('fs__read_file');
    expect(index.remove('fs__read_file')).toBe(true);
    expect(index.remove('fs__read_file')).toBe(false);
    expect(index.search('image bytes')).toEqual([]);
    expect(index.search('read_file')).toEqual([]);
    index.remove('linear__createIssue');
    index.remove('linear__deleteIssue');
    expect(index.search('server:linear')).toEqual([]);
    expect(names(index.search('linear issue', 1))).toEqual(['github__create_issue']);
  });

  it('returns at most `limit` hits, best first', () => {
    const hits = indexOf().search('issue', 2);
    expect(hits).toHaveLength(2);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score);
  });
});

describe('NameCoverage', () => {
  it('gives the idf-weighted share of the request that a name and its server say, following removals', () => {
    const coverage = new NameCoverage();
    coverage.add('a', { name: ['get', 'pull', 'request', 'files'], server: 'github' });
    coverage.add('b', { name: ['merge', 'pull', 'request'], server: 'github' });
    coverage.add('c', { name: 'read_file', server: 'fs' });
    const shares = coverage.of([{ text: 'github get pull request files' }], ['a', 'b', 'c']);
    expect(shares.get('a')).toBeCloseTo(1);
    expect(shares.get('b')!).toBeGreaterThan(0);
    expect(shares.get('b')!).toBeLessThan(shares.get('a')!);
    // `read_file` holds "file", the stem of "files"; a name holding nothing of the request is left out.
    expect(shares.get('c')!).toBeGreaterThan(0);
    expect(coverage.of([{ text: 'slack post message' }], ['a', 'b', 'c']).size).toBe(0);
    // A term in a later, lighter phrase counts for less than one in the first.
    const light = coverage.of([{ text: 'merge' }, { text: 'files', weight: 0.4 }], ['a', 'b']);
    expect(light.get('b')!).toBeGreaterThan(light.get('a')!);
    coverage.remove('a');
    expect(coverage.of([{ text: 'get pull request' }], ['a', 'b']).has('a')).toBe(false);
  });
});

describe('parseToolQuery', () => {
  it('takes a server: filter out of the query wherever it stands', () => {
    expect(parseToolQuery('server:GitHub  create issue')).toEqual({ text: 'create issue', server: 'github' });
    expect(parseToolQuery('create server:github issue')).toEqual({ text: 'create issue', server: 'github' });
    expect(parseToolQuery('  list files ')).toEqual({ text: 'list files' });
    expect(parseToolQuery('myserver:x files')).toEqual({ text: 'myserver:x files' });
  });
});

describe('rewriteQuery', () => {
  const texts = (parts: { text: string }[]) => parts.map((part) => part.text.replace(/\s+/g, ' ').trim());

  it('drops literal values, and says a file name names a file of its kind', () => {
    expect(texts(rewriteQuery("tag the page with 'oncall'"))).toEqual(['tag the page', 'with']);
    expect(texts(rewriteQuery('summarize https://youtu.be/x1 now'))).toEqual(['summarize now']);
    expect(texts(rewriteQuery('parse invoice.pdf from docs/in/'))).toEqual(['parse file pdf', 'from']);
  });

  it('weighs each phrase less than the one before, down to a floor', () => {
    expect(rewriteQuery('capture a backup of the db before the upgrade, then tell me')).toEqual([
      { text: 'capture a backup ', weight: 1 },
      { text: 'of the db ', weight: 0.7 },
      { text: 'before the upgrade', weight: 0.4 },
      { text: ' then tell me', weight: 0.4 },
    ]);
  });

  it('joins phrasal verbs, at their phrase’s weight, and gives a question the action it asks for', () => {
    expect(rewriteQuery('sign me out everywhere')).toEqual([
      { text: 'sign me out everywhere', weight: 1 },
      { text: 'signout', weight: 1 },
    ]);
    expect(rewriteQuery('restart the app and roll it back')).toContainEqual({ text: 'rollback', weight: 1 });
    expect(rewriteQuery('sign in to Slack')).toContainEqual({ text: 'signin', weight: 1 });
    expect(rewriteQuery('which boards do we have?')).toContainEqual({ text: 'list get', weight: 1 });
    expect(rewriteQuery('who made this')).toContainEqual({ text: 'user', weight: 1 });
  });
});

describe('a query longer than any request', () => {
  const task = [
    'Read the config file and tell me which port the server listens on.',
    'It was working yesterday but after the upgrade nothing starts.',
    '',
    '```',
    `Error: listen EADDRINUSE ${'at Server.listen (node:net:1234) '.repeat(200)}`,
    '```',
  ].join('\n');

  it('is answered from its first paragraph, in its first words, saying what was ignored', () => {
    const index = indexOf();
    const found = index.find(task);
    expect(found.hits[0]?.name).toBe('fs__read_file');
    expect(found.ignored).toMatch(/^Read the first \d+ words of the query \("Read the config file/);
    expect(found.ignored).toMatch(/ignored the other \d+ characters/);
    expect(index.search(task)).toEqual(found.hits);
  });

  it('is read within a bound of words and characters, passing over pasted values', () => {
    const words = tellingPart(Array.from({ length: 500 }, (_, at) => `word${at}`).join(' '));
    expect(words.text.split(' ').length).toBeLessThanOrEqual(READ_WORDS);
    expect(tellingPart('long '.repeat(1000)).text.length).toBeLessThanOrEqual(READ_CHARACTERS);
    expect(tellingPart(`${'x'.repeat(5000)} read a file`)).toMatchObject({ text: 'read a file' });
    expect(tellingPart('read a file')).toEqual({ text: 'read a file' });
  });

  // Found by the fuzz test: call_tool with a 70,000-character name took over 30 s to answer,
  // looking for suggestions; reading a long query was quadratic in its longest word.
  it('finds nothing in a query that is one pasted value, and says so', () => {
    const index = indexOf();
    expect(index.search('x'.repeat(70_000))).toEqual([]);
    expect(index.find('x'.repeat(70_000))).toMatchObject({
      hits: [],
      weak: true,
      ignored: expect.any(String),
    });
  });
});

describe('a search that went badly', () => {
  it('names the words no tool uses and the servers closest to the rest', () => {
    const found = indexOf().find('flibbertigibbet snollygoster wibble repository');
    expect(found.unmatched).toEqual(['flibbertigibbet', 'snollygoster', 'wibble']);
    expect(found.weak).toBe(true);
    expect(found.closestServers[0]).toBe('github');
  });

  it('is not weak when the best hit explains the query', () => {
    const found = indexOf().find('github create issue');
    expect(found).toMatchObject({ weak: false, unmatched: [], closestServers: [] });
    expect(found.hits[0]?.name).toBe('github__create_issue');
  });

  it('is weak when nothing matches at all', () => {
    expect(indexOf().find('zzyzx quuxle')).toMatchObject({
      hits: [],
      weak: true,
      unmatched: ['zzyzx', 'quuxle'],
      closestServers: [],
    });
  });
});

describe('termExpansions', () => {
  it('reads the verb a request leads with in its verb sense, and only that verb', () => {
    expect(termExpansions('open a ticket for this')('open')).toEqual(
      expect.arrayContaining(['create', 'add']),
    );
    expect(termExpansions('please, hit Enter')('hit')).toContain('press');
    expect(termExpansions('can you drop a comment there')('drop')).toEqual(
      expect.arrayContaining(['add', 'post', 'delete']),
    );
    expect(termExpansions('list the open tickets')('open')).toEqual([]);
    expect(termExpansions('list the open tickets')('ticket')).toEqual(synonymsOf('ticket'));
  });

  // Found by the fuzz test: search_tool_bm25 { query: "constructor" } failed unexpectedly.
  it('takes a request that leads with the name of an object property as a plain word', () => {
    expect(termExpansions('constructor')('constructor')).toEqual(synonymsOf('constructor'));
    expect(names(indexOf().search('constructor of a file'))).toContain('fs__read_file');
  });
});

describe('synonymsOf', () => {
  it('expands tokenized terms and two-term phrases to the rest of their group', () => {
    expect(synonymsOf('remov')).toEqual(expect.arrayContaining(['delete', 'drop']));
    expect(synonymsOf('pr')).toContain('pull request');
    expect(synonymsOf('pull request')).toContain('pr');
    expect(synonymsOf('unheard')).toEqual([]);
  });
});

describe('questions', () => {
  const index = new ToolIndex();
  index.upsert({ name: 'b__open_tab', server: 'b', tool: 'open_tab', description: 'Open a tab at a URL.' });
  index.upsert({
    name: 'b__close_tab',
    server: 'b',
    tool: 'close_tab',
    description: 'Close the tab.',
    annotations: { readOnlyHint: false },
  });
  index.upsert({
    name: 'b__tab_state',
    server: 'b',
    tool: 'tab_state',
    description: 'The state of each tab.',
    annotations: { readOnlyHint: true },
  });

  it('rank a tool that reads above ones that change things, as annotations or name verbs tell', () => {
    expect(index.search('which tab?', 3).map((hit) => hit.name)).toEqual([
      'b__tab_state',
      'b__open_tab',
      'b__close_tab',
    ]);
    // The same words as an order are not a question.
    expect(index.search('tab', 3)[0]?.name).not.toBe('b__tab_state');
  });
});

describe('orders', () => {
  const index = new ToolIndex();
  index.upsert({
    name: 'n__retrieve_page_property',
    server: 'n',
    tool: 'retrieve_page_property',
    description: 'Retrieve one property of a page, such as its status.',
  });
  index.upsert({
    name: 'n__patch_page',
    server: 'n',
    tool: 'patch_page',
    description: 'Update a page: its title, icon or any property.',
  });
  index.upsert({
    name: 'n__page_status',
    server: 'n',
    tool: 'page_status',
    description: 'Read the status of each page.',
    annotations: { readOnlyHint: true },
  });

  it('rank tools that change things above ones that only read, as annotations or name verbs tell', () => {
    const names = (query: string) => index.search(query, 3).map((hit) => hit.name);
    // Words alone favour the readers: they say "property" and "status" too.
    expect(names('status property of this page')[0]).not.toBe('n__patch_page');
    expect(names('please set the status property on this page')[0]).toBe('n__patch_page');
    // A model names the service first, then the verb.
    expect(names('n update page status property')[0]).toBe('n__patch_page');
    // A reading verb first is not an order to change anything.
    expect(names('get the status property of this page, then update it')[0]).not.toBe('n__patch_page');
  });
});

describe('tool language', () => {
  it('keeps where each group of words was seen, and expands each word to the rest of its group', () => {
    for (const { words, seenIn } of TOOL_LANGUAGE) {
      expect(seenIn.length).toBeGreaterThan(0);
      for (const word of words) {
        const terms = tokenize(word);
        expect(terms.length).toBeGreaterThan(0);
        expect(synonymsOf(terms.join(' ')).length).toBeGreaterThanOrEqual(words.length - 1);
      }
    }
    expect(synonymsOf('stash')).toEqual(expect.arrayContaining(['shelve', 'park']));
  });

  // The README's own example, over toolmesh's own servers: "work on" asks for the work that
  // is ready, in the words task tools use (ready, next, unblocked), not for the work tree.
  it('finds the ready queue for "what can I work on now?" over toolmesh’s own servers', () => {
    const index = new ToolIndex();
    for (const entry of evalRegistry(['catalogs-first-party'])) index.upsert(entry);
    expect(index.search('what can I work on now?', 1)[0]?.name).toBe('tickets__list_ready_tickets');
    expect(index.search('which ticket should I pick up next?', 1)[0]?.name).toBe(
      'tickets__list_ready_tickets',
    );
  });
});
