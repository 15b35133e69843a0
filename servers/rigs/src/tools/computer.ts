import { ToolError } from '@toolmesh/core';
import { z } from 'zod';
import type { DesktopAnswer, DesktopMachine, Point } from '../rigs/desktop/desktop-machine.js';
import {
  answerOnRig,
  boundedString,
  callerOf,
  defineTool,
  MACHINE_TOOL,
  need,
  pixels,
  rigIdArg,
  within,
} from './define.js';

/** Anthropic's computer-use actions, plus launch, clipboard and resize. */
const ACTIONS = [
  'key',
  'type',
  'mouse_move',
  'left_click',
  'right_click',
  'middle_click',
  'double_click',
  'triple_click',
  'left_click_drag',
  'left_mouse_down',
  'left_mouse_up',
  'scroll',
  'hold_key',
  'wait',
  'screenshot',
  'cursor_position',
  'zoom',
  'launch',
  'clipboard',
  'resize',
] as const;

const point = pixels(2);

const input = z.object({
  action: z.enum(ACTIONS),
  rig_id: rigIdArg,
  coordinate: point.optional().describe('[x, y] to move, click, scroll at, or end a drag.'),
  start_coordinate: point.optional().describe('left_click_drag: start.'),
  text: boundedString(100_000)
    .optional()
    .describe(
      'type: text; key, hold_key: keys (ctrl+s, Return); clicks: modifiers held; clipboard: text to write, none to read.',
    ),
  scroll_direction: z.enum(['up', 'down', 'left', 'right']).optional(),
  scroll_amount: within(1, 50).optional().describe('Wheel clicks (default 3).'),
  duration: within(0, 30).optional().describe('wait, hold_key: seconds.'),
  region: pixels(4).optional().describe('zoom: [x0, y0, x1, y1].'),
  argv: z.array(boundedString(4096)).min(1).max(64).optional().describe('launch: program and arguments.'),
  size: pixels(2).optional().describe('resize: [width, height]; restarts the display.'),
});

type Input = z.infer<typeof input>;

/** Key names go to xdotool as arguments; one starting with "-" would read as an option. */
function keys(args: Input): string {
  const text = need(args, 'text');
  if (text.split(/[\s+]+/).some((name) => name.startsWith('-'))) {
    throw new ToolError(
      `\`text\` ${JSON.stringify(text)} is not a key combination: give names like ctrl+s, Return or F5.`,
    );
  }
  return text;
}

/** The schema holds a point to two numbers. */
const toPoint = ([x = 0, y = 0]: number[]): Point => [x, y];

/** A zoom region's corners, the second below and right of the first. */
function zoomRegion([x0, y0, x1, y1]: number[]): [number, number, number, number] {
  if (x0 === undefined || y0 === undefined || x1 === undefined || y1 === undefined || x1 <= x0 || y1 <= y0) {
    throw new ToolError('`region` is [x0, y0, x1, y1] with x1 > x0 and y1 > y0.');
  }
  return [x0, y0, x1, y1];
}

async function perform(machine: DesktopMachine, args: Input): Promise<DesktopAnswer> {
  const at = args.coordinate && toPoint(args.coordinate);
  const [width = 0, height = 0] = args.size ?? [];
  switch (args.action) {
    case 'key':
      return machine.key(keys(args));
    case 'type':
      return machine.type(need(args, 'text'));
    case 'hold_key':
      return machine.holdKey(keys(args), args.duration ?? 1);
    case 'mouse_move':
      return machine.mouseMove(toPoint(need(args, 'coordinate')));
    case 'left_click':
      return machine.click('left', 1, at, args.text);
    case 'right_click':
      return machine.click('right', 1, at, args.text);
    case 'middle_click':
      return machine.click('middle', 1, at, args.text);
    case 'double_click':
      return machine.click('left', 2, at, args.text);
    case 'triple_click':
      return machine.click('left', 3, at, args.text);
    case 'left_click_drag':
      return machine.drag(toPoint(need(args, 'start_coordinate')), toPoint(need(args, 'coordinate')));
    case 'left_mouse_down':
      return machine.mouseButton('down', at);
    case 'left_mouse_up':
      return machine.mouseButton('up', at);
    case 'scroll':
      return machine.scroll(need(args, 'scroll_direction'), args.scroll_amount ?? 3, at);
    case 'wait':
      await new Promise((resolve) => setTimeout(resolve, (args.duration ?? 1) * 1000));
      return machine.screenshot();
    case 'screenshot':
      return machine.screenshot();
    case 'cursor_position':
      return machine.cursorPosition();
    case 'zoom':
      return machine.screenshot(zoomRegion(need(args, 'region')));
    case 'launch':
      return machine.launch(need(args, 'argv'));
    case 'clipboard':
      return machine.clipboard(args.text);
    case 'resize':
      need(args, 'size');
      if (width < 320 || width > 3840 || height < 240 || height > 2160) {
        throw new ToolError(`\`size\` ${width}×${height} is out of range: give 320–3840 by 240–2160.`);
      }
      return machine.resize({ width, height });
  }
}

export const computerUse = defineTool({
  name: 'computer_use',
  title: 'Drive a Linux desktop',
  description:
    'A disposable Linux desktop (Xvfb, openbox) per conversation: Anthropic’s computer-use actions, plus launch (argv, no shell), clipboard, resize. Coordinates are in screenshot pixels (one JPEG fit to 1024×768).',
  capability: 'desktop',
  input,
  ...MACHINE_TOOL,
  actions: ['enclosureControl', 'networkEgress', 'processSpawn'],
  handle(args, context) {
    const rigs = context.engine.rigs;
    rigs.ready('desktop');
    return answerOnRig(
      'desktop',
      (act: (machine: DesktopMachine, id: string) => Promise<DesktopAnswer>) =>
        rigs.desktop(callerOf(context), args.rig_id, act),
      (machine) => perform(machine, args),
    );
  },
});
