import { describe, expect, it } from 'vitest';
import { assignNames, exposedName } from '../src/registry/naming.js';

describe('exposedName', () => {
  it('joins server and tool with __ and replaces characters clients reject', () => {
    expect(exposedName('github', 'create_issue', 48)).toBe('github__create_issue');
    expect(exposedName('@modelcontextprotocol/server-github', 'get.file', 64)).toBe(
      '_modelcontextprotocol_server-github__get_file',
    );
  });

  it('shortens long names deterministically to the limit, with a hash of the original', () => {
    const long = exposedName('a-very-long-server-name', 'and_an_even_longer_tool_name_that_goes_on', 48);
    expect(long).toHaveLength(48);
    expect(long).toMatch(/^a-very-long-server-name__and_an_even_long_[0-9a-f]{6}$/);
    expect(exposedName('a-very-long-server-name', 'and_an_even_longer_tool_name_that_goes_on', 48)).toBe(
      long,
    );
    expect(
      exposedName('a-very-long-server-name', 'and_an_even_longer_tool_name_that_goes_on_2', 48),
    ).not.toBe(long);
  });
});

describe('assignNames', () => {
  it('resolves collisions by the same rule, whatever the input order, and reports them', () => {
    const items = [
      { server: 'b', name: 'x.y' },
      { server: 'b', name: 'x_y' },
      { server: 'a', name: 'tool' },
    ];
    const first = assignNames(items, 48);
    const again = assignNames([...items].reverse(), 48);
    expect([...first.named].sort()).toEqual([...again.named].sort());
    expect([...first.named.values()]).toEqual(items);
    expect(first.named.get('b__x_y')).toEqual({ server: 'b', name: 'x.y' });
    expect(first.collisions).toHaveLength(1);
    expect(first.collisions[0]?.renamed.as).toMatch(/^b__x_y_[0-9a-f]{6}$/);
    expect(first.named.get(first.collisions[0]!.renamed.as)).toEqual({ server: 'b', name: 'x_y' });
  });
});

describe('assignNames with own names (prefix: false)', () => {
  it('keeps own names where free; a taken one falls back to <server>__<name>, by the same rule', () => {
    const items = [
      { server: 'solo', name: 'echo', ownName: true },
      { server: 'solo', name: 'call_tool', ownName: true },
      { server: 'solo', name: 'a__x', ownName: true },
      { server: 'solo', name: 'read', ownName: true },
      { server: 'other', name: 'echo', ownName: true },
      { server: 'a', name: 'x' },
    ];
    const first = assignNames(items, 48, ['call_tool']);
    const again = assignNames([...items].reverse(), 48, ['call_tool']);
    expect([...first.named].sort()).toEqual([...again.named].sort());
    expect([...first.named.keys()]).toEqual([
      'solo__echo',
      'solo__call_tool',
      'solo__a__x',
      'read',
      'echo',
      'a__x',
    ]);
    // Own names yield to prefixed names, to the aggregator's own tools, and among themselves
    // go by (server, name) like every other collision.
    expect(first.collisions.map(({ exposed, kept, renamed }) => [exposed, kept.server, renamed.as])).toEqual([
      ['a__x', 'a', 'solo__a__x'],
      ['call_tool', 'toolmesh', 'solo__call_tool'],
      ['echo', 'other', 'solo__echo'],
    ]);
  });
});

describe('assignNames with names held from before', () => {
  it('keeps a held name with its tool when a newcomer would win it by the rule', () => {
    const underscore = { server: 'a_b', name: 'echo' };
    const dot = { server: 'a.b', name: 'echo' };
    const alone = assignNames([underscore], 48);
    expect([...alone.named.keys()]).toEqual(['a_b__echo']);
    const held = new Map([['a_b\0echo', 'a_b__echo']]);
    const later = assignNames([dot, underscore], 48, [], held);
    expect(later.named.get('a_b__echo')).toBe(underscore);
    expect(later.collisions.map(({ kept, renamed }) => [kept.server, renamed.server])).toEqual([
      ['a_b', 'a.b'],
    ]);
    // Without the held name the rule alone decides, and the dot server, sorted first, wins it.
    expect(assignNames([dot, underscore], 48).named.get('a_b__echo')).toBe(dot);
  });

  it('drops a held name that is no longer one of the tool’s candidates', () => {
    const tool = { server: 'srv', name: 'read' };
    const renamed = assignNames([tool], 48, [], new Map([['srv\0read', 'read']]));
    expect([...renamed.named.keys()]).toEqual(['srv__read']);
  });
});

describe('assignNames: a held own name and a late prefixed tool', () => {
  it('gives <server>__<name> back to its server when a prefix: false tool held it first', () => {
    const impostor = { server: 'other', name: 'github__create_pr', ownName: true };
    const github = { server: 'github', name: 'create_pr' };
    const held = new Map([['other\0github__create_pr', 'github__create_pr']]);
    const later = assignNames([impostor, github], 64, [], held);
    expect(later.named.get('github__create_pr')).toBe(github);
    expect(later.named.get('other__github__create_pr')).toBe(impostor);
  });
});
