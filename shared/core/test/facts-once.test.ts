import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  annotationDisagreement,
  READ_ONLY_ANNOTATIONS,
  RECOVERABLE_WRITE_ANNOTATIONS,
} from '../src/define-tool.js';
import { packageVersion } from '../src/package-version.js';

describe('packageVersion', () => {
  it('reads the version from the nearest manifest above the module, from src/ as from test/', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(packageVersion(import.meta.url)).toBe(manifest.version);
    expect(packageVersion(new URL('../src/index.ts', import.meta.url).href)).toBe(manifest.version);
  });
});

describe('annotationDisagreement', () => {
  it('accepts annotations that say what the action classes say', () => {
    expect(annotationDisagreement({ annotations: READ_ONLY_ANNOTATIONS, actions: ['read'] })).toBeUndefined();
    expect(
      annotationDisagreement({ annotations: RECOVERABLE_WRITE_ANNOTATIONS, actions: ['vcsWrite'] }),
    ).toBeUndefined();
    expect(
      annotationDisagreement({
        annotations: { ...RECOVERABLE_WRITE_ANNOTATIONS, openWorldHint: true },
        actions: ['networkEgress', 'memoryWrite'],
      }),
    ).toBeUndefined();
  });

  it('names what disagrees', () => {
    expect(
      annotationDisagreement({ annotations: READ_ONLY_ANNOTATIONS, actions: ['read', 'worktreeWrite'] }),
    ).toBe('readOnlyHint is true but the action classes are [read, worktreeWrite]');
    expect(annotationDisagreement({ annotations: RECOVERABLE_WRITE_ANNOTATIONS, actions: ['read'] })).toMatch(
      /readOnlyHint is false/,
    );
    expect(
      annotationDisagreement({ annotations: RECOVERABLE_WRITE_ANNOTATIONS, actions: ['networkEgress'] }),
    ).toBe('openWorldHint is false but the action classes include networkEgress');
    expect(
      annotationDisagreement({
        annotations: { ...READ_ONLY_ANNOTATIONS, destructiveHint: true },
        actions: ['read'],
      }),
    ).toBe('a read-only tool cannot be destructive');
  });
});
