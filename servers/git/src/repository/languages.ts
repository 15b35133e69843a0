import path from 'node:path';

export const SYMBOL_KINDS = [
  'function',
  'method',
  'class',
  'interface',
  'type',
  'enum',
  'struct',
  'trait',
  'impl',
  'module',
] as const;
export type SymbolKind = (typeof SYMBOL_KINDS)[number];

/** How a language marks where a definition ends. */
export type BlockStyle = 'braces' | 'indentation' | 'end';

export interface DefinitionPattern {
  kind: SymbolKind;
  /** Matches the line that opens a definition; the `name` group is its name. */
  pattern: RegExp;
}

/** What a brace scanner must skip so that braces in strings and comments are not counted. */
export interface Syntax {
  quotes: string;
  /** `'x'` is a character literal (C, Java, Go, Rust) rather than a string delimiter. */
  characterLiterals: boolean;
  lineComments: readonly string[];
  blockComments: boolean;
}

export interface Language {
  name: string;
  extensions: readonly string[];
  /** The git diff driver naming hunk headers: one of git's built-in userdiff drivers, or ours. */
  driver: string;
  blocks: BlockStyle;
  syntax: Syntax;
  definitions: readonly DefinitionPattern[];
}

const C_LIKE: Syntax = { quotes: '"', characterLiterals: true, lineComments: ['//'], blockComments: true };
const ECMASCRIPT_SYNTAX: Syntax = {
  quotes: '"\'`',
  characterLiterals: false,
  lineComments: ['//'],
  blockComments: true,
};
const HASH_COMMENTS: Syntax = {
  quotes: '"\'',
  characterLiterals: false,
  lineComments: ['#'],
  blockComments: false,
};

const NOT_A_KEYWORD =
  '(?!(?:if|for|foreach|while|switch|catch|return|function|with|do|else|new|await|typeof|sizeof|throw|case)\\b)';

const ECMASCRIPT: DefinitionPattern[] = [
  {
    kind: 'class',
    pattern:
      /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+(?<name>[A-Za-z_$][\w$]*)/,
  },
  { kind: 'interface', pattern: /^\s*(?:export\s+)?(?:declare\s+)?interface\s+(?<name>[A-Za-z_$][\w$]*)/ },
  { kind: 'enum', pattern: /^\s*(?:export\s+)?(?:declare\s+)?(?:const\s+)?enum\s+(?<name>[A-Za-z_$][\w$]*)/ },
  {
    kind: 'type',
    pattern: /^\s*(?:export\s+)?(?:declare\s+)?type\s+(?<name>[A-Za-z_$][\w$]*)\s*(?:<[^=]*>)?\s*=/,
  },
  {
    kind: 'function',
    pattern:
      /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\s*\*?\s*(?<name>[A-Za-z_$][\w$]*)/,
  },
  {
    kind: 'function',
    pattern:
      /^\s*(?:export\s+)?(?:const|let|var)\s+(?<name>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\(|[A-Za-z_$][\w$]*\s*=>)/,
  },
  {
    // A function declared by its parameter list alone: a method when inside a class.
    kind: 'function',
    pattern: new RegExp(
      `^\\s*(?:(?:public|private|protected|static|readonly|async|override|abstract|get|set|declare)\\s+)*\\*?\\s*${NOT_A_KEYWORD}(?<name>#?[A-Za-z_$][\\w$]*)\\s*(?:<[^>]*>)?\\s*\\((?:.*\\)\\s*(?::\\s*[^;{]+)?\\{\\s*|\\s*)$`,
    ),
  },
];

const JVM_MODIFIERS =
  '(?:(?:public|private|protected|internal|static|final|abstract|sealed|partial|data|open|override|virtual|synchronized|native|async|suspend|inline|extern|unsafe|readonly|new)\\s+)*';

const JVM_DEFINITIONS: DefinitionPattern[] = [
  {
    kind: 'class',
    pattern: new RegExp(`^\\s*(?:@\\w+\\s+)*${JVM_MODIFIERS}(?:class|record|object|struct)\\s+(?<name>\\w+)`),
  },
  { kind: 'interface', pattern: new RegExp(`^\\s*${JVM_MODIFIERS}interface\\s+(?<name>\\w+)`) },
  { kind: 'enum', pattern: new RegExp(`^\\s*${JVM_MODIFIERS}enum\\s+(?:class\\s+)?(?<name>\\w+)`) },
  {
    kind: 'function',
    pattern: new RegExp(
      `^\\s*${JVM_MODIFIERS}(?:fun|def)\\s+(?:<[^>]*>\\s*)?(?:[\\w.]+\\.)?(?<name>\\w+)\\s*[(\\[]`,
    ),
  },
  {
    kind: 'function',
    pattern: new RegExp(
      `^\\s*${JVM_MODIFIERS}(?:<[^>]*>\\s*)?${NOT_A_KEYWORD}[\\w<>\\[\\],.?]+\\s+${NOT_A_KEYWORD}(?<name>\\w+)\\s*\\([^;]*$`,
    ),
  },
];

const LANGUAGES: Language[] = [
  {
    name: 'typescript',
    extensions: ['.ts', '.tsx', '.mts', '.cts'],
    driver: 'toolmesh-ecmascript',
    blocks: 'braces',
    syntax: ECMASCRIPT_SYNTAX,
    definitions: ECMASCRIPT,
  },
  {
    name: 'javascript',
    extensions: ['.js', '.jsx', '.mjs', '.cjs'],
    driver: 'toolmesh-ecmascript',
    blocks: 'braces',
    syntax: ECMASCRIPT_SYNTAX,
    definitions: ECMASCRIPT,
  },
  {
    name: 'python',
    extensions: ['.py', '.pyi'],
    driver: 'python',
    blocks: 'indentation',
    syntax: HASH_COMMENTS,
    definitions: [
      { kind: 'class', pattern: /^\s*class\s+(?<name>[A-Za-z_]\w*)/ },
      { kind: 'function', pattern: /^\s*(?:async\s+)?def\s+(?<name>[A-Za-z_]\w*)/ },
    ],
  },
  {
    name: 'go',
    extensions: ['.go'],
    driver: 'golang',
    blocks: 'braces',
    syntax: { ...C_LIKE, quotes: '"`' },
    definitions: [
      { kind: 'method', pattern: /^func\s+\([^)]*\)\s*(?<name>\w+)/ },
      { kind: 'function', pattern: /^func\s+(?<name>\w+)/ },
      { kind: 'struct', pattern: /^type\s+(?<name>\w+)\s+struct\b/ },
      { kind: 'interface', pattern: /^type\s+(?<name>\w+)\s+interface\b/ },
    ],
  },
  {
    name: 'rust',
    extensions: ['.rs'],
    driver: 'rust',
    blocks: 'braces',
    syntax: C_LIKE,
    definitions: [
      {
        kind: 'function',
        pattern:
          /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:default\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+(?<name>\w+)/,
      },
      { kind: 'struct', pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|union)\s+(?<name>\w+)/ },
      { kind: 'enum', pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?enum\s+(?<name>\w+)/ },
      { kind: 'trait', pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?trait\s+(?<name>\w+)/ },
      {
        kind: 'impl',
        pattern: /^\s*(?:unsafe\s+)?impl\b(?:\s*<[^>]*>)?\s+(?:[\w:<>, &']+\s+for\s+)?(?<name>[\w:]+)/,
      },
      { kind: 'module', pattern: /^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(?<name>\w+)\s*\{/ },
    ],
  },
  {
    name: 'java',
    extensions: ['.java', '.scala'],
    driver: 'java',
    blocks: 'braces',
    syntax: C_LIKE,
    definitions: JVM_DEFINITIONS,
  },
  {
    name: 'csharp',
    extensions: ['.cs'],
    driver: 'csharp',
    blocks: 'braces',
    syntax: C_LIKE,
    definitions: JVM_DEFINITIONS,
  },
  {
    name: 'kotlin',
    extensions: ['.kt', '.kts'],
    driver: 'kotlin',
    blocks: 'braces',
    syntax: C_LIKE,
    definitions: JVM_DEFINITIONS,
  },
  {
    name: 'c',
    extensions: ['.c', '.h', '.cc', '.cpp', '.cxx', '.hpp', '.hh', '.hxx'],
    driver: 'cpp',
    blocks: 'braces',
    syntax: C_LIKE,
    definitions: [
      { kind: 'module', pattern: /^\s*namespace\s+(?<name>[\w:]+)\s*\{?\s*$/ },
      { kind: 'class', pattern: /^\s*(?:template\s*<[^>]*>\s*)?(?:class|struct|union)\s+(?<name>\w+)[^;]*$/ },
      {
        kind: 'function',
        pattern: new RegExp(
          `^${NOT_A_KEYWORD}(?:[\\w*&:<>,~]+\\s+)*[*&]*${NOT_A_KEYWORD}(?<name>~?[\\w:]+)\\s*\\([^;]*$`,
        ),
      },
    ],
  },
  {
    name: 'ruby',
    extensions: ['.rb', '.rake'],
    driver: 'ruby',
    blocks: 'end',
    syntax: HASH_COMMENTS,
    definitions: [
      { kind: 'class', pattern: /^\s*class\s+(?<name>[\w:]+)/ },
      { kind: 'module', pattern: /^\s*module\s+(?<name>[\w:]+)/ },
      { kind: 'function', pattern: /^\s*def\s+(?<name>(?:self\.)?[\w?!=<>[\]+-]+)/ },
    ],
  },
  {
    name: 'php',
    extensions: ['.php'],
    driver: 'php',
    blocks: 'braces',
    syntax: { quotes: '"\'', characterLiterals: false, lineComments: ['//', '#'], blockComments: true },
    definitions: [
      {
        kind: 'class',
        pattern: /^\s*(?:abstract\s+|final\s+|readonly\s+)*(?:class|trait|enum)\s+(?<name>\w+)/,
      },
      { kind: 'interface', pattern: /^\s*interface\s+(?<name>\w+)/ },
      {
        kind: 'function',
        pattern: /^\s*(?:(?:public|private|protected|static|abstract|final)\s+)*function\s+&?(?<name>\w+)/,
      },
    ],
  },
  {
    name: 'shell',
    extensions: ['.sh', '.bash', '.zsh'],
    driver: 'bash',
    blocks: 'braces',
    syntax: HASH_COMMENTS,
    definitions: [
      { kind: 'function', pattern: /^\s*function\s+(?<name>[\w.:-]+)/ },
      { kind: 'function', pattern: /^\s*(?<name>[\w.:-]+)\s*\(\)/ },
    ],
  },
];

const BY_EXTENSION = new Map(
  LANGUAGES.flatMap((language) => language.extensions.map((ext) => [ext, language])),
);

export function languageOf(file: string): Language | undefined {
  return BY_EXTENSION.get(path.extname(file).toLowerCase());
}

/**
 * A hunk-header rule for JavaScript and TypeScript, which git has no built-in driver for: the
 * last line above a hunk that declares a function, class, method or arrow function. Patterns
 * are POSIX extended regular expressions, the first negated one rejecting control statements.
 */
const ECMASCRIPT_FUNCNAME = [
  '!^[ \t]*(if|else|for|while|do|switch|case|catch|try|finally|return|throw|new|await|import|export \\{)([ \t(]|$)',
  '^[ \t]*((export[ \t]+)?(default[ \t]+)?(declare[ \t]+)?(abstract[ \t]+)?(async[ \t]+)?(function|class|interface|enum|namespace)[ \t*].*)$',
  '^[ \t]*((export[ \t]+)?(const|let|var)[ \t]+[A-Za-z_$][A-Za-z0-9_$]*[ \t]*(:[^=]*)?=[ \t]*(async[ \t]+)?(function|\\(|[A-Za-z_$][A-Za-z0-9_$]*[ \t]*=>).*)$',
  '^[ \t]*(((public|private|protected|static|readonly|async|override|abstract|get|set)[ \t]+)*[#A-Za-z_$][A-Za-z0-9_$]*[ \t]*(<[^>]*>)?[ \t]*\\([^;]*)$',
].join('\n');

/** The gitattributes lines giving each language its driver, and the config our own driver needs. */
export function userdiffAttributes(): { attributes: string; config: [string, string][] } {
  const attributes = LANGUAGES.flatMap((language) =>
    language.extensions.map((ext) => `*${ext} diff=${language.driver}`),
  ).join('\n');
  return {
    attributes: `${attributes}\n`,
    config: [['diff.toolmesh-ecmascript.xfuncname', ECMASCRIPT_FUNCNAME]],
  };
}
