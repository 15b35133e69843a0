import { describe, expect, it } from 'vitest';
import { calleesOf, callersOf, edgesOf, indexedFixtureSuite, symbolsNamed } from './fixture-graph.js';

describe('Bash fixture', () => {
  const suite = indexedFixtureSuite('bash-tools');

  it('finds functions in both syntaxes, with the comment block above as doc', () => {
    expect(symbolsNamed(suite.graph, 'backup')).toEqual(['backup (function) bin/backup.sh:8']);
    expect(suite.graph.findSymbols('backup')[0]?.symbol).toMatchObject({
      signature: 'backup()',
      doc: 'Backs up a folder into an archive.\nLogs what it does.',
      exported: true,
      endLine: 11,
    });
    expect(suite.graph.findSymbols('archive')[0]?.symbol.signature).toBe('function archive');
  });

  it('follows source and . of paths relative to the script, and binds commands to the functions they run', () => {
    expect(edgesOf(suite.graph, 'IMPORTS')).toEqual([
      'bin/backup.sh -> lib/fs.sh',
      'bin/backup.sh -> lib/log.sh',
      'lib/fs.sh -> lib/log.sh',
    ]);
    expect(callersOf(suite.graph, 'log_info')).toEqual([
      { caller: 'backup', lines: ['bin/backup.sh:9'] },
      { caller: 'archive', lines: ['lib/fs.sh:4'] },
    ]);
    expect(callersOf(suite.graph, 'main')).toEqual([
      { caller: 'bin/backup.sh', lines: ['bin/backup.sh:17'] },
    ]);
    // Commands that name no function run programs: outside the root, not unresolved.
    expect(calleesOf(suite.graph, 'backup')).toEqual(['log_info import', 'archive import', '?tee external']);
    expect(suite.graph.roots[0]?.queries.status()).toMatchObject({ unresolvedCalls: 0, externalCalls: 4 });
  });

  it('binds a command to a function that a sourced file defines later', async () => {
    const before = suite.graph.roots[0]?.queries.status();
    suite.copy.write('bin/report.sh', 'source "$(dirname "$0")/../lib/log.sh"\nlog_warn "start"\n');
    await suite.graph.roots[0]?.index.update(['bin/report.sh']);
    // While the graph is being built, counts up to the age asked for are served; else read again.
    expect(suite.graph.roots[0]?.queries.status(60_000)).toBe(before);
    expect(suite.graph.roots[0]?.queries.status()).toMatchObject({
      files: (before?.files ?? 0) + 1,
      calls: (before?.calls ?? 0) + 1,
    });
    expect(edgesOf(suite.graph, 'CALLS')).toContain('bin/report.sh -> ?');
    suite.copy.write(
      'lib/log.sh',
      'log_info() {\n  echo "[info] $*" >&2\n}\n\nlog_warn() { echo "$*" >&2; }\n',
    );
    await suite.graph.roots[0]?.index.update(['lib/log.sh']);
    // bin/report.sh did not change: it is re-resolved because a name it runs now exists.
    expect(callersOf(suite.graph, 'log_warn')).toEqual([
      { caller: 'bin/report.sh', lines: ['bin/report.sh:2'] },
    ]);
  });
});
