import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Ajv, ValidateFunction } from 'ajv';

type Dialect = 'draft-07' | '2020-12';

const validators = new Map<Dialect, Promise<Ajv>>();

/**
 * Loaded on the first call that needs approval, not at start-up. Structure only: formats are
 * left to the server, whose own check may read a format more loosely, and a call it would run
 * must not be refused here.
 */
function ajvOnce(dialect: Dialect): Promise<Ajv> {
  const options = { strict: false, validateFormats: false, validateSchema: false, allErrors: true };
  let validator = validators.get(dialect);
  if (!validator) {
    validator =
      dialect === 'draft-07'
        ? import('ajv').then(({ Ajv }) => new Ajv(options))
        : import('ajv/dist/2020.js').then(({ Ajv2020 }) => new Ajv2020(options));
    validators.set(dialect, validator);
  }
  return validator;
}

const OLDER_DRAFT = /^https?:\/\/json-schema\.org\/draft-0[4-7]\/schema#?$/;

/**
 * The dialect a schema is read in: the one its `$schema` names when that is an older draft,
 * else 2020-12, MCP's default. They differ where it matters here: after `prefixItems` (a
 * tuple, as zod 4 writes it), 2020-12's `items: false` forbids more items, draft-07's any.
 */
function dialectOf(schema: Tool['inputSchema']): Dialect {
  const named = (schema as { $schema?: unknown }).$schema;
  return typeof named === 'string' && OLDER_DRAFT.test(named) ? 'draft-07' : '2020-12';
}

/** One compiled check per schema; a schema that cannot be compiled is left to its server to judge. */
const checks = new WeakMap<object, ValidateFunction | null>();

function checkOf(ajv: Ajv, schema: Tool['inputSchema']): ValidateFunction | null {
  let check = checks.get(schema);
  if (check === undefined) {
    try {
      check = ajv.compile(schema);
    } catch {
      check = null;
    }
    checks.set(schema, check);
  }
  return check;
}

/** Why `args` cannot be a call of `tool` by its input schema, or undefined when they fit. */
export async function argumentsMisfit(
  tool: Tool,
  args: Record<string, unknown>,
): Promise<string | undefined> {
  const ajv = await ajvOnce(dialectOf(tool.inputSchema));
  const check = checkOf(ajv, tool.inputSchema);
  if (!check || check(args)) return undefined;
  return ajv.errorsText(check.errors, { dataVar: 'arguments', separator: '; ' });
}
