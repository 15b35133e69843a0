/**
 * A failure the model can act on. Handlers throw it; the server turns it into a tool result with
 * `isError: true`, so the message must say what was wrong and what to do next.
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';

  constructor(
    message: string,
    /** A stable machine-readable reason, e.g. `not_found`, `precondition_failed`, `path_refused`. */
    readonly code: string = 'tool_error',
  ) {
    super(message);
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Node's errno code of an error, when it has one. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}
