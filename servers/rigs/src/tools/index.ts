import type { AnyToolDefinition } from '@toolmesh/core';
import { browserUse } from './browser.js';
import { computerUse } from './computer.js';
import type { RigsSession } from './define.js';
import { iosUse, mobileUse } from './devices.js';
import { rigClose, rigList } from './rigs.js';

export const RIG_TOOLS: readonly AnyToolDefinition<RigsSession>[] = [
  browserUse,
  computerUse,
  mobileUse,
  iosUse,
  rigList,
  rigClose,
];
