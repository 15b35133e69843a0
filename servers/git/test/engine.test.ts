import { secretFileKind } from '@toolmesh/core';
import { describe, expect, it } from 'vitest';
import { parseRawNumstat } from '../src/repository/diff-summary.js';
import { languageOf } from '../src/repository/languages.js';
import { parseLog } from '../src/repository/log.js';
import { codeLines, outlineOf } from '../src/repository/outline.js';
import { unquotePath } from '../src/repository/quoted-path.js';
import { overridesFor } from '../src/repository/safe-config.js';
import { assignsSecret, secretsInText } from '../src/repository/secret-rules.js';
import { parseStatus } from '../src/repository/status.js';
import { parseUnifiedDiff } from '../src/repository/unified-diff.js';

function outline(file: string, text: string) {
  const language = languageOf(file);
  if (!language) throw new Error(`no language for ${file}`);
  return outlineOf(text, language).map((definition) => [
    definition.kind,
    definition.qualifiedName,
    definition.startLine,
    definition.endLine,
  ]);
}

describe('outline', () => {
  it('TypeScript: classes, methods, functions and arrow functions, braces in strings and comments ignored', () => {
    const text = [
      'export class Store {', // 1
      '  private items = new Map<string, number>();', // 2
      '  get(key: string): number | undefined {', // 3
      '    const brace = "}"; // a } in a comment', // 4
      '    return this.items.get(key);', // 5
      '  }', // 6
      '  async load(', // 7
      '    from: string,', // 8
      '  ): Promise<void> {', // 9
      '    /* { */', // 10
      '  }', // 11
      '}', // 12
      'export const make = (name: string) => {', // 13
      '  return new Store();', // 14
      '};', // 15
      'function helper() {}', // 16
      'if (ready) {', // 17
      '}', // 18
    ].join('\n');
    expect(outline('store.ts', text)).toEqual([
      ['class', 'Store', 1, 12],
      ['method', 'Store.get', 3, 6],
      ['method', 'Store.load', 7, 11],
      ['function', 'make', 13, 15],
      ['function', 'helper', 16, 16],
    ]);
  });

  it('Python: by indentation, with decorators and multi-line signatures', () => {
    const text = [
      'class Greeter:', // 1
      '    def __init__(', // 2
      '        self,', // 3
      '    ):', // 4
      '        self.name = "x"', // 5
      '', // 6
      '    def greet(self):', // 7
      '        return self.name', // 8
      '', // 9
      'def top():', // 10
      '    pass', // 11
      '# def commented():', // 12
    ].join('\n');
    expect(outline('greet.py', text)).toEqual([
      ['class', 'Greeter', 1, 8],
      ['method', 'Greeter.__init__', 2, 5],
      ['method', 'Greeter.greet', 7, 8],
      ['function', 'top', 10, 11],
    ]);
  });

  it('Go, Rust, Java and Ruby', () => {
    expect(
      outline(
        'main.go',
        'type Server struct {\n\tname string\n}\n\nfunc (s *Server) Start() error {\n\treturn nil\n}\n\nfunc main() {\n}\n',
      ),
    ).toEqual([
      ['struct', 'Server', 1, 3],
      ['method', 'Start', 5, 7],
      ['function', 'main', 9, 10],
    ]);
    expect(
      outline('lib.rs', "impl<'a> Parser<'a> {\n    pub fn parse(&self) -> char {\n        '{'\n    }\n}\n"),
    ).toEqual([
      ['impl', 'Parser', 1, 5],
      ['method', 'Parser.parse', 2, 4],
    ]);
    expect(
      outline(
        'App.java',
        'public class App {\n  public static void main(String[] args) {\n    if (args.length > 0) {\n    }\n  }\n}\n',
      ),
    ).toEqual([
      ['class', 'App', 1, 6],
      ['method', 'App.main', 2, 5],
    ]);
    expect(
      outline('app.rb', 'module Shop\n  class Cart\n    def total\n      1\n    end\n  end\nend\n'),
    ).toEqual([
      ['module', 'Shop', 1, 7],
      ['class', 'Shop.Cart', 2, 6],
      ['method', 'Shop.Cart.total', 3, 5],
    ]);
  });

  it('blanks strings, template literals, comments and character literals', () => {
    const syntax = languageOf('x.ts')?.syntax;
    if (!syntax) throw new Error('no syntax');
    expect(codeLines('a("{", `x\n}`, /* { */ b); // }', syntax)).toEqual([
      'a(   ,   ',
      '  ,         b);     ',
    ]);
  });
});

describe('secret rules', () => {
  it('recognise token formats without keeping the value, on the line they start', () => {
    const secretIn = (line: string) => secretsInText(line)[0]?.rule;
    expect(secretIn(`aws_access_key_id = ${'AKIA'}Z2XQ7YH3ABCDWXYZ`)).toBe('AWS Access Key ID');
    expect(secretIn(`-----BEGIN RSA ${'PRIVATE'} KEY-----`)).toBe('private key');
    expect(secretIn(`x = "${'xoxp'}-123456789012-abcdefghij"`)).toBe('slack token');
    expect(secretIn('const greeting = "hello world";')).toBeUndefined();
    expect(
      secretsInText(`a\nkey:\n-----BEGIN RSA ${'PRIVATE'} KEY-----\nMII\nAPI_KEY=9fK2mQ7xL0pR4tZ8vB1n`),
    ).toEqual([
      { line: 3, rule: 'private key' },
      { line: 5, rule: 'high-entropy value assigned to a secret name' },
    ]);
    expect(secretsInText('a\nAPI_KEY=9fK2mQ7xL0pR4tZ8vB1n\n')).toEqual([
      { line: 2, rule: 'high-entropy value assigned to a secret name' },
    ]);
  });

  it('flag random values assigned to secret names, not placeholders or code', () => {
    expect(assignsSecret('CLIENT_SECRET=9fK2mQ7xL0pR4tZ8vB1n')).toBe(true);
    expect(assignsSecret('apiKey: "a8F3kL9qZ2xW7mN4bV6c"')).toBe(true);
    expect(assignsSecret('DB_PASSWORD=S3cr3t!pw')).toBe(true);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell-style reference, as it appears in config files
    expect(assignsSecret('API_KEY=${API_KEY}')).toBe(false);
    expect(assignsSecret('const token = getToken(request);')).toBe(false);
    expect(assignsSecret('SECRET_KEY=changeme-changeme-changeme')).toBe(false);
    expect(assignsSecret('keyboardLayout = "qwertyuiopasdfgh1"')).toBe(false);
    expect(assignsSecret('AUTH_TOKEN=aaaaaaaaaaaaaaaaaaaa1')).toBe(false);
  });

  it('name the files that are secrets whatever they hold', () => {
    expect(secretFileKind('.env')).toMatch(/environment file/);
    expect(secretFileKind('app/.env.production')).toMatch(/environment file/);
    expect(secretFileKind('.env.example')).toBeUndefined();
    expect(secretFileKind('home/.ssh/id_ed25519')).toMatch(/private key/);
    expect(secretFileKind('certs/store.p12')).toBe('key store');
    expect(secretFileKind('src/env.ts')).toBeUndefined();
  });
});

describe('parsers of git output', () => {
  it('status porcelain v2 with a rename, a conflict, branch headers and stashes', () => {
    const output = [
      '# branch.oid 1111111111111111111111111111111111111111',
      '# branch.head topic',
      '# branch.upstream origin/topic',
      '# branch.ab +2 -3',
      '# stash 4',
      '1 .M N... 100644 100644 100644 aaa aaa file with space.txt',
      '2 R. N... 100644 100644 100644 bbb bbb R100 new name.txt',
      'old name.txt',
      'u UU N... 100644 100644 100644 100644 c1 c2 c3 both.txt',
      '? new.txt',
      '',
    ].join('\0');
    expect(parseStatus(output)).toEqual({
      branch: 'topic',
      head: '1111111111111111111111111111111111111111',
      detached: false,
      upstream: 'origin/topic',
      ahead: 2,
      behind: 3,
      stashCount: 4,
      entries: [
        { area: 'unstaged', path: 'file with space.txt', change: 'modified' },
        { area: 'staged', path: 'new name.txt', change: 'renamed', oldPath: 'old name.txt' },
        { area: 'conflicted', path: 'both.txt', conflict: 'both modified' },
        { area: 'untracked', path: 'new.txt' },
      ],
    });
  });

  it('raw and numstat records, renames and binaries', () => {
    const output = [
      ':100644 100644 aaa bbb M',
      'a.txt',
      ':100644 100644 aaa bbb R090',
      'old.txt',
      'new.txt',
      ':000000 100644 000 ccc A',
      'bin.dat',
      '3\t1\ta.txt',
      '2\t2\t',
      'old.txt',
      'new.txt',
      '-\t-\tbin.dat',
      '',
    ].join('\0');
    expect(parseRawNumstat(output)).toEqual([
      { path: 'a.txt', change: 'modified', added: 3, removed: 1, binary: false },
      { path: 'new.txt', oldPath: 'old.txt', change: 'renamed', added: 2, removed: 2, binary: false },
      { path: 'bin.dat', change: 'added', added: null, removed: null, binary: true },
    ]);
  });

  it('log records with numstat', () => {
    const output =
      '\x1eabc\x1fab\x1fAnn\x1fann@x\x1f2024-01-01T00:00:00Z\x1fp1 p2\x1fsubject\0\n1\t0\ta.txt\0';
    expect(parseLog(output)).toEqual([
      {
        hash: 'abc',
        shortHash: 'ab',
        author: 'Ann',
        email: 'ann@x',
        date: '2024-01-01T00:00:00Z',
        parents: ['p1', 'p2'],
        subject: 'subject',
        filesChanged: 1,
        files: [{ path: 'a.txt', added: 1, removed: 0 }],
      },
    ]);
  });

  it('unified diffs with quoted paths, binaries and pure renames', () => {
    const patch = [
      'diff --git "a/tab\\there" "b/tab\\there"',
      'index 1..2 100644',
      '--- "a/tab\\there"',
      '+++ "b/tab\\there"',
      '@@ -1 +1,2 @@ func',
      '-x',
      '+y',
      '+z',
      'diff --git a/img.png b/img.png',
      'new file mode 100644',
      'Binary files /dev/null and b/img.png differ',
      'diff --git a/from.txt b/to.txt',
      'similarity index 100%',
      'rename from from.txt',
      'rename to to.txt',
      '',
    ].join('\n');
    const files = parseUnifiedDiff(patch);
    expect(files.map((file) => [file.oldPath, file.newPath, file.binary, file.hunks.length])).toEqual([
      ['tab\there', 'tab\there', false, 1],
      [null, 'img.png', true, 0],
      ['from.txt', 'to.txt', false, 0],
    ]);
    expect(files[0]?.hunks[0]).toMatchObject({
      oldStart: 1,
      oldLines: 1,
      newStart: 1,
      newLines: 2,
      context: 'func',
    });
    expect(unquotePath('"caf\\303\\251"')).toBe('café');
  });
});

describe('config neutralisation', () => {
  it('overrides every program-valued key a repository names, keeping subsection case', () => {
    expect(
      overridesFor([
        'filter.LFS.clean',
        'filter.a=b.process',
        'merge.ours.driver',
        'diff.py.textconv',
        'credential.https://x.helper',
        'protocol.ext.allow',
        'user.name',
      ]),
    ).toEqual([
      ['filter.LFS.clean', ''],
      ['filter.a=b.process', ''],
      ['merge.ours.driver', ''],
      ['diff.py.textconv', ''],
      ['credential.https://x.helper', ''],
      ['protocol.ext.allow', 'never'],
    ]);
  });
});
