import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import ts from 'typescript';

interface FileText {
  text: string;
  /** sha1 of the bytes, as RootIndex hashes them. */
  hash: string;
}

/**
 * The texts and parsed source files the worker's programs share. A program rebuilt with
 * `oldProgram` reuses every file for which the host returns the very same SourceFile, so a
 * file is parsed again only once it is forgotten (it changed on disk).
 */
export class SourceCache {
  private readonly texts = new Map<string, FileText | null>();
  private readonly parsed = new Map<string, Map<string, ts.SourceFile>>();

  text(fileName: string): FileText | undefined {
    let cached = this.texts.get(fileName);
    if (cached === undefined) {
      try {
        const bytes = readFileSync(fileName);
        const text = bytes.toString('utf8');
        cached = {
          text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text,
          hash: createHash('sha1').update(bytes).digest('hex'),
        };
      } catch {
        cached = null;
      }
      this.texts.set(fileName, cached);
    }
    return cached ?? undefined;
  }

  /** The hash of the text read for `fileName`, if one was read (no read happens here). */
  cachedHash(fileName: string): string | undefined {
    return this.texts.get(fileName)?.hash;
  }

  forget(fileName: string): void {
    this.texts.delete(fileName);
    this.parsed.delete(fileName);
  }

  forgetWhere(test: (fileName: string) => boolean): void {
    for (const fileName of [...this.texts.keys()]) if (test(fileName)) this.forget(fileName);
  }

  /** A compiler host for one program's options, reading through this cache. */
  hostFor(options: ts.CompilerOptions): ts.CompilerHost {
    const host = ts.createCompilerHost(options, true);
    const settings = settingsKey(options);
    host.readFile = (fileName) => this.text(fileName)?.text;
    host.getSourceFile = (fileName, languageVersionOrOptions, onError) => {
      const source = this.text(fileName);
      if (!source) {
        onError?.(`cannot read ${fileName}`);
        return undefined;
      }
      const parse =
        typeof languageVersionOrOptions === 'object'
          ? languageVersionOrOptions
          : { languageVersion: languageVersionOrOptions };
      const key = `${settings}|${parse.languageVersion}|${parse.impliedNodeFormat ?? ''}`;
      let byKey = this.parsed.get(fileName);
      if (!byKey) {
        byKey = new Map();
        this.parsed.set(fileName, byKey);
      }
      let file = byKey.get(key);
      if (!file) {
        file = ts.createSourceFile(fileName, source.text, languageVersionOrOptions, true);
        byKey.set(key, file);
      }
      return file;
    };
    // Imports of a referenced project reach its sources, as in an editor, not its built .d.ts.
    (host as { useSourceOfProjectReferenceRedirect?: () => boolean }).useSourceOfProjectReferenceRedirect =
      () => true;
    return host;
  }
}

/** The options under which a parsed and bound source file can be shared between programs. */
export function settingsKey(options: ts.CompilerOptions): string {
  return JSON.stringify([
    options.target,
    options.module,
    options.moduleDetection,
    options.jsx,
    options.allowJs,
    options.checkJs,
    options.strict,
    options.alwaysStrict,
    options.experimentalDecorators,
    options.verbatimModuleSyntax,
  ]);
}
