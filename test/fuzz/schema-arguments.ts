import type { Prng } from './prng.js';
import type { SeenValues } from './seen-values.js';

/** The part of JSON Schema (2020-12) that tools/list entries use. */
export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  description?: string;
}

/** Values that fit the fixture the servers run on: files that exist, a real commit. */
export interface FixtureValues {
  paths: string[];
  refs: string[];
  /** Values that fit fields of these names, where the schema alone does not say (a served workspace, a status word). */
  fields: Record<string, unknown[]>;
  /** Must stay outside every server's reach. */
  sentinel: string;
  /** Where the injected commands (`--upload-pack=touch …`) would leave a file if one ran. */
  trap: string;
  /** A loopback port nothing listens on, for every URL. */
  closedPort: number;
}

export type CallKind = 'valid' | 'boundary' | 'wrong-type' | 'missing-required' | 'extra-field';

const KINDS: readonly CallKind[] = [
  'valid',
  'valid',
  'valid',
  'boundary',
  'boundary',
  'wrong-type',
  'missing-required',
  'extra-field',
];

const LONG = 'x'.repeat(70_000);

const ODD_STRINGS = [
  '',
  ' ',
  'NaN',
  'Infinity',
  '-1',
  '1e309',
  'null',
  'undefined',
  '0x1F',
  'ünïcödé ✓',
  '💥🦀👩‍👩‍👧',
  '\u202egnp.exe',
  'a\u0000b',
  '\r\n\t',
  '%s%n%x',
  "'; DROP TABLE tickets; --",
  '${env:HOME}',
  '<script>alert(1)</script>',
  '"quoted" \\ back',
  'x'.repeat(5000),
  LONG,
  '__proto__',
  'constructor',
  '-rf',
  '--upload-pack=touch TRAP',
];

const HOSTILE_PATHS = [
  '../sentinel.txt',
  '../../sentinel.txt',
  '../../../../../../../../etc/passwd',
  '/etc/passwd',
  'C:\\',
  'C:\\Windows\\win.ini',
  '\\\\host\\share\\x',
  '~',
  '~/.ssh/id_rsa',
  'a\u0000b',
  '-rf',
  '--upload-pack=touch TRAP',
  '--output=TRAP',
  '.',
  '..',
  '',
  'file:///etc/passwd',
  'work/../../sentinel.txt',
  '.git/config',
  '**/*',
  'ünï/路径/файл.txt',
  `${'deep/'.repeat(200)}x`,
];

const HOSTILE_REFS = [
  '--upload-pack=touch TRAP',
  '--output=TRAP',
  '-rf',
  'HEAD@{99}',
  'HEAD:../../sentinel.txt',
  '..',
  'main..HEAD',
  '^',
  ':/',
  'refs/heads/../../x',
  'a b',
  'HEAD~999999',
];

const WORDS = ['alpha', 'beta', 'deploy', 'ops', 'notes', 'fix the build', 'Money.multiplyByRate', 'main'];

/** The string a field names or describes: a URL, a path, a git revision, or just text. */
function stringRole(name: string, schema: Schema): 'url' | 'path' | 'ref' | 'opml' | 'text' {
  const about = `${name} ${schema.description ?? ''}`;
  if (name === 'opml') return 'opml';
  if (schema.format === 'uri' || /url|uri|feed|endpoint/i.test(about)) return 'url';
  if (
    /branch|tag|commit hash|revision|HEAD/.test(schema.description ?? '') ||
    /ref|revision|startPoint/i.test(name)
  )
    return 'ref';
  if (/path|file|folder|repo|director|root|glob|destination|source/i.test(about)) return 'path';
  return 'text';
}

function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((type) => type !== 'null');
  return schema.type;
}

export class ArgumentFuzzer {
  constructor(
    private readonly rng: Prng,
    private readonly fixture: FixtureValues,
    private readonly seen: SeenValues,
  ) {}

  /** Mostly, a value the server answered with (or the fixture gave) under this field's name, when there is one. */
  private known(name: string, type: 'string' | 'number'): unknown {
    const candidates = this.seen.candidates(name, type);
    return candidates.length > 0 && this.rng.chance(0.75) ? this.rng.pick(candidates) : undefined;
  }

  /** One of `items`, with an injected command's target pointed at the trap. */
  private hostile(items: readonly string[]): string {
    return this.rng.pick(items).replaceAll('TRAP', this.fixture.trap);
  }

  private url(): string {
    const { closedPort } = this.fixture;
    return this.rng.pick([
      `http://127.0.0.1:${closedPort}/feed.xml`,
      `http://127.0.0.1:${closedPort}/`,
      `http://127.0.0.1:${closedPort}/${encodeURIComponent(this.hostile(ODD_STRINGS).slice(0, 200))}`,
      `https://127.0.0.1:${closedPort}/atom`,
      `http://[::1]:${closedPort}/rss`,
      'file:///etc/passwd',
      `file://${this.fixture.sentinel}`,
    ]);
  }

  private opml(): string {
    const outline = `<outline type="rss" text="t" xmlUrl="${this.url().replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"/>`;
    return this.rng.pick([
      `<?xml version="1.0"?><opml version="2.0"><head/><body>${outline}</body></opml>`,
      '<opml><body><outline',
      `<!DOCTYPE x [<!ENTITY e SYSTEM "file://${this.fixture.sentinel}">]><opml><body><outline xmlUrl="&e;"/></body></opml>`,
      'not xml at all',
    ]);
  }

  private fittedText(schema: Schema): string {
    const word = this.rng.pick(WORDS);
    const min = schema.minLength ?? 0;
    const max = schema.maxLength ?? 200;
    const text = word.length < min ? word.padEnd(min, 'x') : word;
    return text.slice(0, Math.max(max, min));
  }

  private string(name: string, schema: Schema, boundary: boolean): string {
    const role = stringRole(name, schema);
    if (role === 'url') return boundary && this.rng.chance(0.3) ? this.hostile(ODD_STRINGS) : this.url();
    if (role === 'opml') return this.opml();
    if (role === 'path')
      return boundary
        ? this.hostile([...HOSTILE_PATHS, this.fixture.sentinel])
        : this.rng.pick(this.fixture.paths);
    if (role === 'ref') return boundary ? this.hostile(HOSTILE_REFS) : this.rng.pick(this.fixture.refs);
    return boundary ? this.hostile(ODD_STRINGS) : this.fittedText(schema);
  }

  private number(schema: Schema, integer: boolean, boundary: boolean): number {
    const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -10);
    const max = Math.min(schema.maximum ?? 1000, min + 1000);
    if (!boundary) return integer ? this.rng.int(min, max) : min + this.rng.next() * (max - min);
    return this.rng.pick([
      0,
      -1,
      1,
      min,
      max,
      min - 1,
      (schema.maximum ?? max) + 1,
      1.5,
      Number.MAX_SAFE_INTEGER,
      2 ** 53 + 2,
      1e308,
      -1e308,
      -0,
    ]);
  }

  /** A value for `schema`: one that fits it, or (`boundary`) one at or past its edges. */
  value(name: string, schema: Schema, boundary: boolean, depth = 0): unknown {
    if (schema.const !== undefined) return schema.const;
    if (schema.enum)
      return boundary && this.rng.chance(0.3) ? this.hostile(ODD_STRINGS) : this.rng.pick(schema.enum);
    const options = schema.anyOf ?? schema.oneOf;
    if (options && options.length > 0) return this.value(name, this.rng.pick(options), boundary, depth);
    const type = typeOf(schema);
    const known =
      boundary || !(type === 'string' || type === 'integer' || type === 'number')
        ? undefined
        : this.known(name, type === 'string' ? 'string' : 'number');
    if (known !== undefined) return known;
    switch (type) {
      case 'string':
        return this.string(name, schema, boundary);
      case 'integer':
        return this.number(schema, true, boundary);
      case 'number':
        return this.number(schema, false, boundary);
      case 'boolean':
        return this.rng.chance(0.5);
      case 'array': {
        const min = schema.minItems ?? 0;
        const max = Math.min(schema.maxItems ?? 3, min + 3);
        const length =
          boundary && this.rng.chance(0.3)
            ? this.rng.pick([0, (schema.maxItems ?? 200) + 1])
            : this.rng.int(min, max);
        const item = schema.items ?? {};
        return Array.from({ length }, () => this.value(name, item, boundary, depth + 1));
      }
      case 'object':
        return depth > 4 ? {} : this.object(schema, boundary, depth + 1);
      default:
        return this.wrongValue('any');
    }
  }

  private object(schema: Schema, boundary: boolean, depth: number): Record<string, unknown> {
    const required = new Set(schema.required ?? []);
    const result: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (required.has(name) || this.rng.chance(0.5))
        result[name] = this.value(name, property, boundary, depth);
    }
    return result;
  }

  /** A value of some type other than `type`. */
  private wrongValue(type: string | undefined): unknown {
    const candidates: [string, unknown][] = [
      ['string', 'not what you wanted'],
      ['string', 'NaN'],
      ['integer', 42],
      ['number', -1e308],
      ['boolean', true],
      ['null', null],
      ['array', [1, 'two', { three: 3 }]],
      ['object', JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}')],
      ['object', JSON.parse(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`)],
    ];
    return this.rng.pick(
      candidates.filter(([kind]) => kind !== type && !(type === 'number' && kind === 'integer')),
    )[1];
  }

  /** Arguments of one call: which kind of call it is, and the arguments. */
  arguments(schema: Schema): { kind: CallKind; args: Record<string, unknown> } {
    const kind = this.rng.pick(KINDS);
    const args = this.object(schema, kind === 'boundary', 0);
    const properties = Object.entries(schema.properties ?? {});
    if (kind === 'wrong-type' && properties.length > 0) {
      const [name, property] = this.rng.pick(properties);
      args[name] = this.wrongValue(typeOf(property));
    }
    if (kind === 'missing-required' && (schema.required ?? []).length > 0) {
      delete args[this.rng.pick(schema.required ?? [])];
    }
    if (kind === 'extra-field') {
      const extra = this.rng.pick([
        'unexpected',
        '__proto__',
        'constructor',
        'prototype',
        '',
        'x'.repeat(300),
      ]);
      // defineProperty, so `__proto__` goes on the wire as a key rather than setting the prototype.
      Object.defineProperty(args, extra, { value: this.wrongValue(undefined), enumerable: true });
    }
    return { kind, args };
  }
}
