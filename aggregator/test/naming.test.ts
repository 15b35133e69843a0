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
