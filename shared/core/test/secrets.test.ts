import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend';
import { afterAll, describe, expect, it } from 'vitest';
import { shannonEntropy } from '../src/entropy.js';
import { PathGuard, PathRefusal } from '../src/path-guard.js';
import { secretFileKind } from '../src/secret-files.js';
import { findSecrets } from '../src/secret-formats.js';
import { SECRET_SAMPLES } from '../src/secret-samples.js';

/**
 * Rules of the preset that no text alone can trigger: gcp looks at files named *.json or *.p12
 * (the private key inside a service account file is found by the private key rules), and
 * filter-comments honours `secretlint-disable` comments, which toolmesh does not.
 */
const RULES_NEEDING_A_FILE = [
  '@secretlint/secretlint-rule-gcp',
  '@secretlint/secretlint-rule-filter-comments',
];

describe('findSecrets', () => {
  it('has a sample for every rule of the preset', () => {
    const sampled = new Set(SECRET_SAMPLES.map((sample) => sample.rule));
    const missing = presetRules
      .map((rule) => rule.meta.id)
      .filter((id) => !sampled.has(id) && !RULES_NEEDING_A_FILE.includes(id));
    expect(missing).toEqual([]);
  });

  for (const sample of SECRET_SAMPLES) {
    it(`finds ${sample.rule} by that rule, covering the secret`, () => {
      const text = `before ${sample.text} after`;
      const findings = findSecrets(text).filter((finding) => finding.rule === sample.rule);
      expect(findings.length).toBeGreaterThan(0);
      const at = text.indexOf(sample.secret);
      expect(
        findings.some((finding) => finding.start <= at && finding.end >= at + sample.secret.length),
      ).toBe(true);
      for (const finding of findings) expect(finding.format).not.toContain(sample.secret.slice(0, 12));
    });
  }

  it('finds nothing in ordinary text', () => {
    const ordinary = [
      'postgres://localhost/app and mongodb://db:27017',
      'see https://example.com/docs#section and git@github.com:owner/repo.git',
      'commit 3f2a9c1e7b8d6a5f4e3d2c1b0a9f8e7d6c5b4a39 by ana',
      'const token = getToken(request); // the sk- prefix, ghp_ prefix',
      '-----BEGIN PUBLIC KEY----- and -----BEGIN CERTIFICATE-----',
    ];
    for (const text of ordinary) expect(findSecrets(text)).toEqual([]);
  });

  it('takes a private key from its armour line to its end, or to the end of the text', () => {
    const cut = `key: -----BEGIN ${'EC'} PRIVATE KEY-----\nMHcCAQEEI`;
    expect(findSecrets(cut)).toMatchObject([{ format: 'private key', start: 5, end: cut.length }]);
  });
});

describe('secretFileKind', () => {
  it('names the secret files and leaves their templates and public halves alone', () => {
    const secret: Record<string, string> = {
      '.env': 'environment file (.env)',
      'app/.env.production': 'environment file (.env)',
      '.envrc': 'environment file (.env)',
      'app/.env-prod': 'environment file (.env)',
      'home/.ssh/id_rsa.bak': 'private key',
      'home/.ssh/id_ed25519.old': 'private key',
      'home/.ssh/id_ed25519': 'private key',
      'certs/server.pem': 'private key',
      'certs/store.p12': 'key store',
      'keys/release.jks': 'key store',
      '.git-credentials': 'credentials file',
      'home/.netrc': 'credentials file',
      '.pgpass': 'credentials file',
      'home/.aws/credentials': 'credentials file',
      '.docker/config.json': 'credentials file',
    };
    for (const [file, kind] of Object.entries(secret))
      expect([file, secretFileKind(file)]).toEqual([file, kind]);
    for (const file of [
      '.env.example',
      'app/.env.sample',
      'home/.ssh/id_ed25519.pub',
      'src/env.ts',
      'deploy/.envoy.yaml',
      'aws/credentials.md',
    ])
      expect([file, secretFileKind(file)]).toEqual([file, undefined]);
  });
});

describe('PathGuard refuses secret files by default', () => {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'secret-files-')));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const guard = new PathGuard([root]);

  it('for reading and writing, naming the glob', () => {
    for (const file of [
      '.git-credentials',
      '.netrc',
      '.pgpass',
      'certs/client.p12',
      'home/.aws/credentials',
      '.env',
      '.envrc',
      'home/.ssh/id_rsa.bak',
    ]) {
      for (const intent of ['read', 'write'] as const) {
        let refusal: unknown;
        try {
          guard.resolve(file, intent);
        } catch (error) {
          refusal = error;
        }
        expect(refusal, `${intent} ${file}`).toBeInstanceOf(PathRefusal);
        expect((refusal as PathRefusal).rule).toBe(`deny-${intent}`);
        expect((refusal as PathRefusal).message).toMatch(/denied by the pattern "\*\*\//);
      }
    }
  });

  it('and writes nothing inside .git, templates there included', () => {
    for (const file of ['.git/hooks/pre-commit.sample', '.git/config.default', '.git/info/key.pub']) {
      let refusal: unknown;
      try {
        guard.resolve(file, 'write');
      } catch (error) {
        refusal = error;
      }
      expect(refusal, file).toBeInstanceOf(PathRefusal);
      expect((refusal as PathRefusal).message).toContain('denied by the pattern "**/.git/**"');
    }
  });

  it('but reads templates and public keys', () => {
    for (const file of ['.env.example', 'home/.ssh/id_rsa.pub'])
      expect(guard.resolve(file, 'read').relative).toBe(file);
  });
});

describe('shannonEntropy', () => {
  it('is 0 for one repeated character and log2(n) for n distinct ones', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
  });
});
