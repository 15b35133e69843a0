import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { utf8Bytes } from '@toolmesh/core';

/**
 * Cuts a downstream result that is larger than `maxBytes`, marking it with the core budget
 * fields in `_meta`. Structured content cannot be cut without breaking its schema, so a result
 * whose structured content alone is too big becomes an error that says how to ask for less.
 */
export function capResult(result: CallToolResult, maxBytes: number, tool: string): CallToolResult {
  const size = utf8Bytes(result);
  if (size <= maxBytes) return result;
  if (result.structuredContent !== undefined && utf8Bytes(result.structuredContent) > maxBytes / 2) {
    return {
      isError: true,
      content: [
        {
          type: 'text',
          text: `${tool} answered with ${size} bytes, more than this session's limit of ${maxBytes}: ask for less (a narrower query, a smaller page or limit).`,
        },
      ],
    };
  }
  const content: CallToolResult['content'] = [];
  let used = result.structuredContent === undefined ? 0 : utf8Bytes(result.structuredContent);
  for (const block of result.content) {
    const bytes = utf8Bytes(block);
    if (used + bytes <= maxBytes) {
      content.push(block);
      used += bytes;
      continue;
    }
    if (block.type === 'text') {
      const room = Math.max(0, maxBytes - used - 200);
      content.push({ ...block, text: Buffer.from(block.text, 'utf8').subarray(0, room).toString('utf8') });
    }
    break;
  }
  content.push({
    type: 'text',
    text: `[toolmesh cut this result: ${size} bytes, over the session's limit of ${maxBytes}]`,
  });
  return {
    ...result,
    content,
    _meta: { ...result._meta, truncated: true, minimumRequiredBytes: size },
  };
}
