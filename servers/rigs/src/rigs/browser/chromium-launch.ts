import { accessSync, constants, readFileSync } from 'node:fs';
import path from 'node:path';
import type { EgressProxy } from '../egress/egress-proxy.js';
import { RIG_MARK } from '../process-group.js';
import { socketTemp } from '../run-folders.js';
import { launchUnderLauncher } from './browser-launcher.js';
import { BrowserMachine } from './browser-machine.js';
import { POPUP_WATCH_SCRIPT } from './popup-watch.js';

/** Why Chromium's own sandbox cannot start here, or undefined when it can. */
export function sandboxBlocker(): string | undefined {
  if (process.getuid?.() === 0) return 'running as root, where Chromium refuses its own sandbox';
  try {
    if (readFileSync('/proc/1/comm', 'utf8').trim() === 'bwrap') {
      return 'inside bubblewrap, which allows no nested namespaces for Chromium’s sandbox';
    }
  } catch {
    // No /proc: not Linux, nothing to tell.
  }
  return undefined;
}

/** Where Debian installs Chromium's binaries; its /usr/bin commands are shell scripts over them. */
const DEBIAN_CHROMIUM = '/usr/lib/chromium';

/**
 * The binary to start for a headless rig. Debian's `chromium` and `chromium-headless-shell`
 * commands are shell scripts that start a binary in /usr/lib/chromium; rigs starts that install's
 * headless shell directly (what Playwright itself launches for headless Chromium): no shell in
 * between, and a browser without the full one's UI, which starts sooner and takes less memory.
 */
export function headlessBinary(executable: string): { binary: string; note?: string } {
  const shell = path.join(DEBIAN_CHROMIUM, 'chromium-headless-shell');
  let script = '';
  try {
    script = readFileSync(executable, 'latin1').slice(0, 4096);
  } catch {
    return { binary: executable };
  }
  if (!script.startsWith('#!') || !/\/usr\/lib\/(\$APPNAME|chromium)/.test(script))
    return { binary: executable };
  try {
    accessSync(shell, constants.X_OK);
  } catch {
    return { binary: executable };
  }
  return {
    binary: shell,
    note: `${executable} is a script over ${DEBIAN_CHROMIUM}: rigs starts its headless shell, ${shell}`,
  };
}

export interface ChromiumLaunch {
  executable: string;
  folder: string;
  /** The egress proxy every request goes through, loopback included; the machine closes it. */
  proxy: EgressProxy;
  viewport?: { width: number; height: number };
}

export async function launchChromium(options: ChromiumLaunch): Promise<BrowserMachine> {
  const { folder } = options;
  const noSandbox = sandboxBlocker();
  const viewport = options.viewport ?? { width: 1280, height: 720 };
  // Loaded with the first browser rig: playwright-core would more than double an idle server's memory.
  const { chromium } = await import('playwright-core');
  const { binary, note } = headlessBinary(options.executable);
  const { launched: context, pid } = await launchUnderLauncher(folder, 'chromium', binary, (launcher) =>
    chromium.launchPersistentContext(path.join(folder, 'profile'), {
      executablePath: launcher,
      headless: true,
      chromiumSandbox: noSandbox === undefined,
      env: { ...process.env, [RIG_MARK]: folder, TMPDIR: socketTemp(folder) },
      downloadsPath: path.join(folder, 'downloads'),
      acceptDownloads: true,
      // Playwright adds <-loopback> to the bypass list, so loopback goes through the proxy too; the
      // credentials are the rig's own, which the proxy asks of every request.
      proxy: { server: options.proxy.url, ...options.proxy.credentials },
      // WebRTC would otherwise send UDP around the proxy.
      args: [
        '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
        '--webrtc-ip-handling-policy=disable_non_proxied_udp',
      ],
      viewport,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: 30_000,
    }),
  );
  try {
    await context.addInitScript({ content: POPUP_WATCH_SCRIPT });
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
  const notes = [...(noSandbox ? [`--no-sandbox: ${noSandbox}`] : []), ...(note ? [note] : [])];
  return new BrowserMachine(context, {
    pid,
    viewport,
    notes,
    executable: binary,
    proxy: options.proxy,
  });
}
