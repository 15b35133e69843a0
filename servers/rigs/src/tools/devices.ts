import { ToolError } from '@toolmesh/core';
import { z } from 'zod';
import { defineTool, renderUse, rigIdArg, USE_ANNOTATIONS, useOutput } from './define.js';

const deviceInput = (actions: readonly [string, ...string[]]) =>
  z.object({
    action: z.enum(actions),
    rig_id: rigIdArg,
    x: z.number().int().min(0).optional(),
    y: z.number().int().min(0).optional(),
    to_x: z.number().int().min(0).optional().describe('swipe: end point.'),
    to_y: z.number().int().min(0).optional(),
    text: z.string().max(10_000).optional(),
    key: z.string().max(64).optional(),
    app: z.string().max(4096).optional().describe('install: a package file; others: the app id.'),
    url: z.string().max(8192).optional().describe('open_url: a deep link.'),
    argv: z.array(z.string().max(4096)).max(64).optional().describe('command: argv, quoted by rigs.'),
  });

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

/** Answers through the probe: the surface cannot start on this machine, and the error says what is missing. */
function unavailable(surface: 'mobile' | 'ios') {
  return async (
    _args: unknown,
    context: { engine: { rigs: { ready(surface: 'mobile' | 'ios'): unknown } } },
  ) => {
    context.engine.rigs.ready(surface);
    throw new ToolError(`${surface} rigs are not driven by this build of toolmesh-rigs.`);
  };
}

export const mobileUse = defineTool({
  name: 'mobile_use',
  title: 'Drive an Android device',
  description:
    'Drive an Android device or emulator through adb: ui_tree, tap, swipe, type, key, screenshot, install, start, stop, reset, uninstall, open_url (deep links), command (argv). Answers with what is missing when no device or emulator is available here.',
  capability: 'mobile',
  input: deviceInput(DEVICE_ACTIONS),
  output: useOutput,
  annotations: USE_ANNOTATIONS,
  actions: ['enclosureControl', 'networkEgress', 'processSpawn', 'packageInstall'],
  workspaceScoped: true,
  render: renderUse,
  handle: unavailable('mobile'),
});

export const iosUse = defineTool({
  name: 'ios_use',
  title: 'Drive an iOS simulator',
  description:
    'Drive an iOS simulator through xcrun simctl and WebDriverAgent: the same actions as mobile_use. Real on macOS with Xcode only; elsewhere it answers what is missing.',
  capability: 'mobile',
  input: deviceInput(DEVICE_ACTIONS),
  output: useOutput,
  annotations: USE_ANNOTATIONS,
  actions: ['enclosureControl', 'networkEgress', 'processSpawn', 'packageInstall'],
  workspaceScoped: true,
  render: renderUse,
  handle: unavailable('ios'),
});
