import { isRecord } from '../config/is-record.js';
import { UsageError } from './usage-error.js';

/** `toolmesh call <tool> '<json>'`: the tool and its arguments, which must be a JSON object. */
export function callArguments(rest: readonly string[]): { tool: string; args: Record<string, unknown> } {
  const [tool, json = '{}', ...extra] = rest;
  if (!tool)
    throw new UsageError(`call needs a tool name: toolmesh call fs__read_file '{"path":"README.md"}'`);
  if (extra.length > 0)
    throw new UsageError(
      `call takes a tool name and one JSON object of arguments, not also "${extra.join(' ')}": quote the whole object, e.g. '{"path":"a.txt"}'`,
    );
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch (error) {
    throw new UsageError(
      `the arguments are not JSON (${(error as Error).message}): quote them, e.g. '{"path":"a.txt"}'`,
    );
  }
  if (!isRecord(args)) {
    const given = Array.isArray(args) ? 'an array' : args === null ? 'null' : `a ${typeof args}`;
    throw new UsageError(
      `the arguments must be a JSON object of named arguments, e.g. '{"path":"a.txt"}', not ${given}`,
    );
  }
  return { tool, args };
}
