import { existsSync } from 'node:fs';
import { ToolError } from '@toolmesh/core';
import { MAX_IMAGE_BYTES } from '../browser/jpeg-screenshot.js';
import { endRigProcesses } from '../process-group.js';
import type { Machine } from '../rig-pool.js';
import { AdbServer, adbShellLine } from './adb-server.js';

export interface MobileAnswer {
  notes: string[];
  body: string;
  image?: Buffer;
  imageType?: 'image/png';
}

/** Where a UI dump is written on the device before it is read back. */
const UI_DUMP = '/data/local/tmp/toolmesh-ui.xml';

/** `input text` reads %s as a space and its argument goes through the device's shell: both handled. */
const inputText = (text: string) => text.replaceAll('%', '%%').replaceAll(' ', '%s');

/**
 * One Android device or emulator behind a private adb server. A rig that finds none does not
 * start: its error says what adb saw and what is missing here.
 */
export class MobileMachine implements Machine {
  readonly controller: string;
  readonly notes: string[];

  private constructor(
    private readonly server: AdbServer,
    private readonly serial: string,
    skipped: string[],
  ) {
    this.controller = `adb (private server on 127.0.0.1:${server.port}) to ${serial}`;
    this.notes = skipped.length > 0 ? [`skipped ${skipped.join(', ')}`] : [];
  }

  static async start(options: { adb: string; folder: string }): Promise<MobileMachine> {
    const server = await AdbServer.start(options);
    try {
      const devices = await server.devices();
      const ready = devices.find((device) => device.state === 'device');
      const skipped = devices
        .filter((device) => device !== ready)
        .map((device) => `${device.serial} (${device.state})`);
      if (!ready) {
        throw new ToolError(
          `no device or emulator: adb (a private server on port ${server.port}) lists ${skipped.length > 0 ? `only ${skipped.join(', ')}` : 'none'}; ${existsSync('/dev/kvm') ? 'start an Android emulator' : 'no /dev/kvm here for an emulator'}, or attach a device with USB debugging on.`,
        );
      }
      return new MobileMachine(server, ready.serial, skipped);
    } catch (error) {
      await endRigProcesses(options.folder, [server.group]);
      throw error;
    }
  }

  processGroups(): number[] {
    return [this.server.group];
  }

  /** The adb server ends with the rig's process group; nothing of it is left on the device. */
  async close(): Promise<void> {}

  private shell(argv: readonly string[]): Promise<Buffer> {
    return this.server.run(['shell', adbShellLine(argv)], this.serial);
  }

  private async done(note: string, argv: readonly string[]): Promise<MobileAnswer> {
    const said = (await this.shell(argv)).toString('utf8').trim();
    return { notes: [note], body: said };
  }

  async uiTree(): Promise<MobileAnswer> {
    await this.shell(['uiautomator', 'dump', '--compressed', UI_DUMP]);
    const xml = (await this.shell(['cat', UI_DUMP])).toString('utf8');
    return { notes: ['the UI tree (uiautomator dump)'], body: xml };
  }

  tap(x: number, y: number): Promise<MobileAnswer> {
    return this.done(`tapped ${x},${y}`, ['input', 'tap', String(x), String(y)]);
  }

  swipe(from: [number, number], to: [number, number]): Promise<MobileAnswer> {
    return this.done(`swiped ${from.join(',')} to ${to.join(',')}`, [
      'input',
      'swipe',
      ...[...from, ...to].map(String),
    ]);
  }

  type(text: string): Promise<MobileAnswer> {
    return this.done(`typed ${text.length} character(s)`, ['input', 'text', inputText(text)]);
  }

  key(key: string): Promise<MobileAnswer> {
    return this.done(`pressed ${key}`, ['input', 'keyevent', key]);
  }

  async screenshot(): Promise<MobileAnswer> {
    const image = await this.server.run(['exec-out', 'screencap', '-p'], this.serial);
    if (image.length > MAX_IMAGE_BYTES) {
      throw new ToolError(
        `the screenshot is ${Math.round(image.length / 1024)} KB of PNG, above the ${MAX_IMAGE_BYTES / 1024} KB a result carries: use ui_tree.`,
      );
    }
    return {
      notes: [`screenshot, ${Math.round(image.length / 1024)} KB PNG`],
      body: '',
      image,
      imageType: 'image/png',
    };
  }

  async install(file: string): Promise<MobileAnswer> {
    const said = (await this.server.run(['install', '-r', '--', file], this.serial)).toString('utf8');
    return { notes: [`installed ${file}`], body: said.trim() };
  }

  uninstall(app: string): Promise<MobileAnswer> {
    return this.done(`uninstalled ${app}`, ['pm', 'uninstall', app]);
  }

  start(app: string): Promise<MobileAnswer> {
    return this.done(`started ${app}`, ['monkey', '-p', app, '-c', 'android.intent.category.LAUNCHER', '1']);
  }

  stop(app: string): Promise<MobileAnswer> {
    return this.done(`stopped ${app}`, ['am', 'force-stop', app]);
  }

  reset(app: string): Promise<MobileAnswer> {
    return this.done(`cleared the data of ${app}`, ['pm', 'clear', app]);
  }

  openUrl(url: string): Promise<MobileAnswer> {
    return this.done(`opened ${url}`, ['am', 'start', '-a', 'android.intent.action.VIEW', '-d', url]);
  }

  command(argv: readonly string[]): Promise<MobileAnswer> {
    return this.done(`ran ${argv[0]}`, argv);
  }
}
