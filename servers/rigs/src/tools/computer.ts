import { ToolError, withContent } from '@toolmesh/core';
import { z } from 'zod';
import type { DesktopAnswer, DesktopMachine, Point } from '../rigs/desktop/desktop-machine.js';
import {
  callerOf,
  defineTool,
  framed,
  renderUse,
  rigIdArg,
  USE_ANNOTATIONS,
  type UseOutput,
  useOutput,
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

const coordinate = z.tuple([z.number().int().min(0), z.number().int().min(0)]);

const input = z.object({
  action: z.enum(ACTIONS),
  rig_id: rigIdArg,
  coordinate: coordinate
    .optional()
    .describe('[x, y] in screenshot coordinates: where to move, click, scroll, or end a drag.'),
  start_coordinate: coordinate.optional().describe('left_click_drag: where the drag starts.'),
  text: z
    .string()
    .max(100_000)
    .optional()
    .describe(
      'type: the text; key and hold_key: keys such as ctrl+s or Return; clicks: modifiers held (shift, ctrl); clipboard: text to write (leave out to read).',
    ),
  scroll_direction: z.enum(['up', 'down', 'left', 'right']).optional(),
  scroll_amount: z.number().int().min(1).max(50).optional().describe('scroll: wheel clicks (default 3).'),
  duration: z.number().min(0).max(30).optional().describe('wait, hold_key: seconds.'),
  region: z
    .tuple([
      z.number().int().min(0),
      z.number().int().min(0),
      z.number().int().min(1),
      z.number().int().min(1),
    ])
    .optional()
    .describe('zoom: [x0, y0, x1, y1] in screenshot coordinates, shown at screenshot size.'),
  argv: z
    .array(z.string().max(4096))
    .min(1)
    .max(64)
    .optional()
    .describe('launch: the program and its arguments (no shell).'),
  size: z
    .tuple([z.number().int().min(320).max(3840), z.number().int().min(240).max(2160)])
    .optional()
    .describe('resize: [width, height] of the display; it restarts, closing its programs.'),
});

type Input = z.infer<typeof input>;

function need<K extends keyof Input>(args: Input, field: K): NonNullable<Input[K]> {
  const value = args[field];
  if (value === undefined) throw new ToolError(`\`${String(field)}\` is required for action ${args.action}.`);
  return value as NonNullable<Input[K]>;
}

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

async function perform(machine: DesktopMachine, args: Input): Promise<DesktopAnswer> {
  const at = args.coordinate as Point | undefined;
  switch (args.action) {
    case 'key':
      return machine.key(keys(args));
    case 'type':
      return machine.type(need(args, 'text'));
    case 'hold_key':
      return machine.holdKey(keys(args), args.duration ?? 1);
    case 'mouse_move':
      return machine.mouseMove(need(args, 'coordinate') as Point);
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
      return machine.drag(need(args, 'start_coordinate') as Point, need(args, 'coordinate') as Point);
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
      return machine.screenshot(need(args, 'region'));
    case 'launch':
      return machine.launch(need(args, 'argv'));
    case 'clipboard':
      return machine.clipboard(args.text);
    case 'resize': {
      const [width, height] = need(args, 'size');
      return machine.resize({ width, height });
    }
  }
}

export const computerUse = defineTool({
  name: 'computer_use',
  title: 'Drive a Linux desktop',
  description:
    'Drive a disposable Linux desktop (Xvfb and openbox; one per conversation, reused, closed when idle) with Anthropic’s computer-use actions: key, type, mouse_move, left/right/middle/double/triple click, left_click_drag, left_mouse_down/up, scroll, hold_key, wait, screenshot, cursor_position, zoom; plus launch (start a program, argv), clipboard and resize (restarts the display). Coordinates are in screenshot pixels; screenshots are one JPEG scaled to fit 1024×768.',
  capability: 'desktop',
  input,
  output: useOutput,
  annotations: USE_ANNOTATIONS,
  actions: ['enclosureControl', 'networkEgress', 'processSpawn'],
  workspaceScoped: true,
  render: renderUse,
  async handle(args, context) {
    const rigs = context.engine.rigs;
    rigs.ready('desktop');
    let rigId = '';
    const answer = await rigs.desktop(callerOf(context), args.rig_id, (machine, id) => {
      rigId = id;
      return perform(machine, args);
    });
    const output: UseOutput = {
      rig_id: rigId,
      notes: answer.notes,
      content: framed(answer.body, `desktop rig ${rigId}`),
    };
    return answer.image
      ? withContent(output, [
          { type: 'image', data: answer.image.toString('base64'), mimeType: 'image/jpeg' },
        ])
      : output;
  },
});
