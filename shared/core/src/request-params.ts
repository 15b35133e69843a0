import { ClientRequestSchema } from '@modelcontextprotocol/core';
import type { z } from 'zod';

const REQUEST_PARAMS = new Map<string, z.ZodType>(
  ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]),
);

/** The first few issues of a schema pass, each naming its field. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map(
      (issue) => `${issue.path.length > 0 ? `\`${issue.path.join('.')}\`` : 'the message'}: ${issue.message}`,
    )
    .join('; ');
}

/**
 * What is wrong with a request's params for its method, naming the fields, or undefined when
 * they fit (or the method is not one toolmesh knows the params of). The SDK would answer such a
 * request with an internal error holding a dump of schema issues.
 */
export function requestParamsProblem(request: { method?: unknown }): string | undefined {
  const schema = typeof request.method === 'string' ? REQUEST_PARAMS.get(request.method) : undefined;
  const checked = schema?.safeParse(request);
  if (!checked || checked.success) return undefined;
  return `Invalid params for ${request.method}: ${describeIssues(checked.error)}. Fix them and send the request again.`;
}
