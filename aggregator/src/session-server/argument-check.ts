import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Ajv, ValidateFunction } from 'ajv';

let validator: Promise<Ajv> | undefined;

/**
 * Loaded on the first call that needs approval, not at start-up. Structure only: formats are
 * left to the server, whose own check may read a format more loosely, and a call it would run
 * must not be refused here.
 */
function ajvOnce(): Promise<Ajv> {
  validator ??= import('ajv').then(
    ({ Ajv }) => new Ajv({ strict: false, validateFormats: false, validateSchema: false, allErrors: true }),
  );
  return validator;
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
  const ajv = await ajvOnce();
  const check = checkOf(ajv, tool.inputSchema);
  if (!check || check(args)) return undefined;
  return ajv.errorsText(check.errors, { dataVar: 'arguments', separator: '; ' });
}
