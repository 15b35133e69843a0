import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv, type ValidateFunction } from 'ajv';

/**
 * Structure only: formats are left to the server, whose own check may read a format more
 * loosely, and a call it would run must not be refused here.
 */
const ajv = new Ajv({ strict: false, validateFormats: false, validateSchema: false, allErrors: true });

/** One compiled check per schema; a schema that cannot be compiled is left to its server to judge. */
const checks = new WeakMap<object, ValidateFunction | null>();

function checkOf(schema: Tool['inputSchema']): ValidateFunction | null {
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
export function argumentsMisfit(tool: Tool, args: Record<string, unknown>): string | undefined {
  const check = checkOf(tool.inputSchema);
  if (!check || check(args)) return undefined;
  return ajv.errorsText(check.errors, { dataVar: 'arguments', separator: '; ' });
}
