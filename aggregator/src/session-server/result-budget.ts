import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { utf8Bytes } from '@toolmesh/core';
import { longestFittingPrefix } from './longest-fitting-prefix.js';

type ContentBlock = CallToolResult['content'][number];

interface Cut {
  /** Blocks kept whole, from the first. */
  whole: number;
  /** The block after them, cut: its text's kept and total length in characters. */
  cutText?: { kept: number; of: number };
  structuredContentBytes?: number;
}

/** Counts by type, "2 image blocks, 1 text block". */
function describeBlocks(blocks: readonly ContentBlock[]): string {
  const counts = new Map<string, number>();
  for (const block of blocks) counts.set(block.type, (counts.get(block.type) ?? 0) + 1);
  return [...counts].map(([type, count]) => `${count} ${type} block${count === 1 ? '' : 's'}`).join(', ');
}

function noteText(
  tool: string,
  blocks: readonly ContentBlock[],
  cut: Cut,
  size: number,
  maxBytes: number,
): string {
  const textIndex = cut.whole;
  const leftOut = blocks.slice(cut.cutText ? textIndex + 1 : textIndex);
  const parts = [
    `[toolmesh cut this result: ${tool} answered with ${size} bytes, over this aggregator's limit of ${maxBytes} (resultMaxBytes)`,
    `kept ${cut.whole} of ${blocks.length} content blocks whole`,
    ...(cut.cutText
      ? [`cut text block ${textIndex + 1} after ${cut.cutText.kept} of ${cut.cutText.of} characters`]
      : []),
    ...(leftOut.length > 0 ? [`left out ${describeBlocks(leftOut)}`] : []),
    ...(cut.structuredContentBytes !== undefined
      ? [`left out structuredContent (${cut.structuredContentBytes} bytes)`]
      : []),
  ];
  return `${parts.join('; ')}. Ask the tool for less: a narrower query, a smaller page or limit.]`;
}

/**
 * Cuts a downstream result whose JSON form is larger than `maxBytes` so that the JSON form of
 * what is passed on fits, marked with the core budget fields in `_meta` (`truncated`,
 * `minimumRequiredBytes`, `blockedByBudget` when no content could be kept) and a closing text
 * block that says what was cut and left out. Content blocks are kept in order; the first that
 * does not fit is cut when it is text and left out otherwise, and so is every block after it.
 * Structured content cannot be cut without breaking its schema: it is kept whole when it fits,
 * else left out, and the result is then an error, since a client checks a successful result of
 * a tool with an output schema for it.
 */
export function capResult(result: CallToolResult, maxBytes: number, tool: string): CallToolResult {
  const size = utf8Bytes(result);
  if (size <= maxBytes) return result;
  const { content: blocks, structuredContent, ...rest } = result;
  const meta = { ...result._meta, truncated: true, minimumRequiredBytes: size };
  // The note is sized for the worst case (every block left out, the longest numbers), so
  // whatever it finally says fits in the room kept for it.
  const longestNote = noteText(
    tool,
    blocks,
    { whole: blocks.length, cutText: { kept: size, of: size }, structuredContentBytes: size },
    size,
    maxBytes,
  );
  const noteRoom = utf8Bytes({ type: 'text', text: longestNote }) + 1;
  const envelope = (fields: Record<string, unknown>) =>
    utf8Bytes({ ...rest, ...fields, content: [], _meta: { ...meta, blockedByBudget: true } });
  const keepsStructured =
    structuredContent !== undefined && envelope({ structuredContent }) + noteRoom <= maxBytes;
  const fields = keepsStructured
    ? { structuredContent }
    : structuredContent !== undefined
      ? { isError: true }
      : {};
  // A JSON array of n blocks is 2 brackets, the blocks and n - 1 commas; the note's comma is in noteRoom.
  let room = maxBytes - envelope(fields) - noteRoom;
  const kept: ContentBlock[] = [];
  for (const block of blocks) {
    const bytes = utf8Bytes(block) + 1;
    if (bytes > room) break;
    kept.push(block);
    room -= bytes;
  }
  const cut: Cut = {
    whole: kept.length,
    ...(structuredContent !== undefined &&
      !keepsStructured && { structuredContentBytes: utf8Bytes(structuredContent) }),
  };
  const next = blocks[kept.length];
  if (next?.type === 'text') {
    // Each character takes at least a byte in JSON, so no more than `room` of them can fit.
    const text = longestFittingPrefix(
      next.text.slice(0, Math.max(0, room)),
      (prefix) => utf8Bytes({ ...next, text: prefix }) + 1 <= room,
    );
    if (text.length > 0) {
      kept.push({ ...next, text });
      cut.cutText = { kept: text.length, of: next.text.length };
    }
  }
  return {
    ...rest,
    ...fields,
    content: [...kept, { type: 'text', text: noteText(tool, blocks, cut, size, maxBytes) }],
    _meta: { ...meta, ...(kept.length === 0 && { blockedByBudget: true }) },
  };
}
