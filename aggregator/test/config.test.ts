import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfigFile, parseConfig } from '../src/config/load.js';
import { configJsonSchema } from '../src/config/schema.js';

const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-config-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('config', () => {
  it('accepts a Claude Desktop config unchanged, and VS Code servers beside it', () => {
    const loaded = parseConfig(
      {
        mcpServers: {
          github: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-github'],
            env: { GITHUB_TOKEN: 'x' },
          },
          remote: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer y' } },
          off: { command: 'nope', disabled: true },
        },
        servers: { vscode: { type: 'stdio', command: 'node', args: ['server.js'] } },
        globalShortcut: 'Ctrl+Space',
      },
      { env: {} },
    );
    expect([...loaded.servers.keys()]).toEqual(['github', 'remote', 'vscode']);
    expect(loaded.config.exposure).toBe('all');
    expect(loaded.config.toolNameMaxLength).toBe(48);
  });

  it("prefixes a server's names unless it says prefix: false", () => {
    const loaded = parseConfig(
      { mcpServers: { named: { command: 'x' }, own: { url: 'http://127.0.0.1:1/mcp', prefix: false } } },
      { env: {} },
    );
    expect(loaded.servers.get('named')).toMatchObject({ prefix: true });
    expect(loaded.servers.get('own')).toMatchObject({ prefix: false });
  });

  it('expands ${env:VAR} and names the key when a variable is missing', () => {
    const loaded = parseConfig(
      {
        mcpServers: {
          gh: { command: 'npx', env: { TOKEN: '${env:GH_TOKEN}' }, args: ['--user', '${env:GH_USER}'] },
        },
      },
      { env: { GH_TOKEN: 'secret', GH_USER: 'me' } },
    );
    expect(loaded.servers.get('gh')).toMatchObject({ env: { TOKEN: 'secret' }, args: ['--user', 'me'] });
    expect(() =>
      parseConfig({ mcpServers: { gh: { command: 'x', env: { T: '${env:MISSING_VAR}' } } } }, { env: {} }),
    ).toThrow(/mcpServers\.gh\.env\.T: \$\{env:MISSING_VAR\} is not set/);
  });

  it('expands ${env:VAR} before validating, so a url may come from the environment', () => {
    const file = path.join(folder, 'env-url.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          remote: { url: '${env:MY_URL}', headers: { Authorization: 'Bearer ${env:MY_TOKEN}' } },
          off: { command: 'x', env: { KEY: '${env:UNSET_ON_THIS_MACHINE}' }, disabled: true },
        },
      }),
    );
    const loaded = loadConfigFile(file, { env: { MY_URL: 'http://127.0.0.1:8080/mcp', MY_TOKEN: 't' } });
    expect(loaded.servers.get('remote')).toMatchObject({
      url: 'http://127.0.0.1:8080/mcp',
      headers: { Authorization: 'Bearer t' },
    });
    expect(() => loadConfigFile(file, { env: {} })).toThrow(
      /env-url\.json: mcpServers\.remote\.url: \$\{env:MY_URL\} is not set; set MY_URL/,
    );
    expect(() => loadConfigFile(file, { env: { MY_URL: 'ftp://example.com', MY_TOKEN: 't' } })).toThrow(
      /mcpServers\.remote\.url: expected an http:\/\/ or https:\/\/ URL, e\.g\. http:\/\/127\.0\.0\.1:8080\/mcp/,
    );
  });

  it("warns of unknown top-level keys, suggesting the key meant, but not of other clients' keys", () => {
    const file = path.join(folder, 'typo.json');
    writeFileSync(
      file,
      JSON.stringify({
        exposre: 'discovery',
        frobnicate: true,
        inputs: [{ type: 'promptString', id: 'api-key' }],
        globalShortcut: 'Ctrl+Space',
        servers: { local: { type: 'stdio', command: 'node' } },
      }),
    );
    const loaded = loadConfigFile(file, { env: {} });
    expect(loaded.config.exposure).toBe('all');
    expect(loaded.warnings).toEqual([
      `${file}: exposre: not a toolmesh key, so it is ignored; did you mean exposure?`,
      `${file}: frobnicate: not a toolmesh key, so it is ignored`,
    ]);
    expect(parseConfig({ mcpServers: {}, $schema: 'x' }, { env: {} }).warnings).toEqual([]);
  });

  it('names the key and what is expected for every error', () => {
    const error = (raw: unknown) => {
      try {
        parseConfig(raw, { file: 'toolmesh.json' });
      } catch (caught) {
        expect(caught).toBeInstanceOf(ConfigError);
        return (caught as Error).message;
      }
      throw new Error('expected a ConfigError');
    };
    expect(error({ mcpServers: { bad: { args: ['x'] } } })).toMatch(
      /mcpServers\.bad: a server needs either "command".*or "url"/,
    );
    expect(error({ exposure: 'some' })).toMatch(/exposure: .*"all".*"discovery"/);
    expect(error({ mcpServers: { remote: { url: 'not a url' } } })).toMatch(
      /mcpServers\.remote\.url: expected an http:\/\/ or https:\/\/ URL/,
    );
    expect(error({ mcpServers: { local: { command: 'node', args: 'server.js' } } })).toMatch(
      /mcpServers\.local\.args: .*array/,
    );
    expect(error({ mcpServers: { 'bad name': { command: 'x' } } })).toMatch(/a server name takes letters/);
    expect(error({ mcpServers: { a: { command: 'x' } }, servers: { a: { command: 'y' } } })).toMatch(
      /both mcpServers and servers/,
    );
  });

  it('reads a file, resolving cwd against its folder, and explains unreadable or non-JSON files', () => {
    const file = path.join(folder, 'toolmesh.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { local: { command: 'node', cwd: 'sub' } } }));
    expect(loadConfigFile(file).servers.get('local')).toMatchObject({ cwd: path.join(folder, 'sub') });
    writeFileSync(file, '{ not json');
    expect(() => loadConfigFile(file)).toThrow(/is not JSON/);
    expect(() => loadConfigFile(path.join(folder, 'missing.json'))).toThrow(/cannot read/);
  });

  it('ships a JSON Schema generated from the zod schema (regenerate with pnpm docs)', () => {
    const shipped = JSON.parse(readFileSync(new URL('../toolmesh.schema.json', import.meta.url), 'utf8'));
    expect(shipped).toEqual(configJsonSchema());
  });
});
