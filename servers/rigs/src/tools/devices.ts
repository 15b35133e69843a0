import { ToolError } from '@toolmesh/core';
import { z } from 'zod';
import type { MobileAnswer, MobileMachine } from '../rigs/mobile/mobile-machine.js';
import {
  answerOnRig,
  boundedString,
  callerOf,
  defineTool,
  MACHINE_TOOL,
  need,
  pixels,
  rigIdArg,
} from './define.js';

const DEVICE_ACTIONS = [
  'ui_tree',
  'tap',
  'swipe',
  'type',
  'key',
  'screenshot',
  'install',
  'start',
  'stop',
  'reset',
  'uninstall',
  'open_url',
  'command',
] as const;

const point = pixels(2);

const deviceInput = z.object({
  action: z.enum(DEVICE_ACTIONS),
  rig_id: rigIdArg,
  point: point.optional().describe('tap, swipe: [x, y].'),
  to: point.optional().describe('swipe: end [x, y].'),
  text: boundedString(10_000).optional(),
  key: boundedString(64).optional().describe('A keycode: KEYCODE_HOME, 4.'),
  app: boundedString(4096).optional().describe('install: package file under the roots; else app id.'),
  url: boundedString(8192).optional().describe('open_url: deep link.'),
  argv: z.array(boundedString(4096)).min(1).max(64).optional().describe('command: argv, quoted by rigs.'),
});

type DeviceInput = z.infer<typeof deviceInput>;

const toPoint = ([x = 0, y = 0]: number[]): [number, number] => [x, y];

function perform(machine: MobileMachine, args: DeviceInput, installable: (file: string) => string) {
  switch (args.action) {
    case 'ui_tree':
      return machine.uiTree();
    case 'tap': {
      const [x, y] = toPoint(need(args, 'point'));
      return machine.tap(x, y);
    }
    case 'swipe':
      return machine.swipe(toPoint(need(args, 'point')), toPoint(need(args, 'to')));
    case 'type':
      return machine.type(need(args, 'text'));
    case 'key':
      return machine.key(need(args, 'key'));
    case 'screenshot':
      return machine.screenshot();
    case 'install':
      return machine.install(installable(need(args, 'app')));
    case 'start':
      return machine.start(need(args, 'app'));
    case 'stop':
      return machine.stop(need(args, 'app'));
    case 'reset':
      return machine.reset(need(args, 'app'));
    case 'uninstall':
      return machine.uninstall(need(args, 'app'));
    case 'open_url':
      return machine.openUrl(need(args, 'url'));
    case 'command':
      return machine.command(need(args, 'argv'));
  }
}

export const mobileUse = defineTool({
  name: 'mobile_use',
  title: 'Drive an Android device',
  description:
    'An Android device or emulator through a private adb server, one rig per conversation. Without one here, it says what is missing.',
  capability: 'mobile',
  input: deviceInput,
  ...MACHINE_TOOL,
  actions: ['enclosureControl', 'networkEgress', 'processSpawn', 'packageInstall'],
  handle(args, context) {
    const rigs = context.engine.rigs;
    rigs.ready('mobile');
    return answerOnRig(
      'mobile',
      (act: (machine: MobileMachine, id: string) => Promise<MobileAnswer>) =>
        rigs.mobile(callerOf(context), args.rig_id, act),
      (machine) => perform(machine, args, (file) => rigs.uploadPaths([file])[0] as string),
    );
  },
});

export const iosUse = defineTool({
  name: 'ios_use',
  title: 'Drive an iOS simulator',
  description:
    'An iOS simulator (simctl, WebDriverAgent) with mobile_use’s actions and fields. macOS with Xcode only.',
  capability: 'mobile',
  // Listed short: it runs nowhere but macOS, and mobile_use's fields say what it takes.
  input: deviceInput.pick({ action: true, rig_id: true }).catchall(z.unknown()),
  ...MACHINE_TOOL,
  actions: ['enclosureControl', 'networkEgress', 'processSpawn', 'packageInstall'],
  async handle(_args, context) {
    context.engine.rigs.ready('ios');
    throw new ToolError('ios rigs are not driven by this build of toolmesh-rigs.');
  },
});
