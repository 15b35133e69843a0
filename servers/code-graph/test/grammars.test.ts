import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { grammarFile, grammarPath, SHIPPED_GRAMMARS } from '../src/graph/language-spec.js';
import { LANGUAGES, languageSupport } from '../src/graph/languages.js';

// The build copies the grammars into the package; `pnpm test` builds first.
describe('the grammars the package ships', () => {
  it('hold every language, read from the package folder rather than a grammar package', () => {
    for (const language of LANGUAGES) {
      expect(path.dirname(grammarPath(language))).toBe(SHIPPED_GRAMMARS);
      for (const query of language.grammarQueries ?? []) {
        const file = grammarFile(language.grammarPackage, query);
        expect(file.startsWith(`${SHIPPED_GRAMMARS}${path.sep}`)).toBe(true);
        expect(existsSync(file)).toBe(true);
      }
    }
    expect(languageSupport().every((entry) => entry.installed)).toBe(true);
  });
});
