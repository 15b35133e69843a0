import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { EgressProxy } from '../egress/egress-proxy.js';
import { DIE_WITH_PARENT, RIG_MARK } from '../process-group.js';
import { socketTemp } from '../run-folders.js';
import { BrowserMachine } from './browser-machine.js';

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

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * A launcher script in the rig folder: it records its pid (the process group Playwright starts it
 * in) and runs Chromium under the parent-death signal, since Playwright spawns the binary itself.
 */
function writeLauncher(folder: string, executable: string): string {
  const launcher = path.join(folder, 'chromium.sh');
  const pidFile = path.join(folder, 'browser.pid');
  writeFileSync(
    launcher,
    `#!/bin/sh\necho $$ > ${shellQuote(pidFile)}\nexec ${DIE_WITH_PARENT.join(' ')} ${shellQuote(executable)} "$@"\n`,
    { mode: 0o700 },
  );
  return launcher;
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
  const context = await chromium.launchPersistentContext(path.join(folder, 'profile'), {
    executablePath: writeLauncher(folder, options.executable),
    headless: true,
    chromiumSandbox: noSandbox === undefined,
    env: { ...process.env, [RIG_MARK]: folder, TMPDIR: socketTemp(folder) },
    downloadsPath: path.join(folder, 'downloads'),
    acceptDownloads: true,
    // Playwright adds <-loopback> to the bypass list, so loopback goes through the proxy too.
    proxy: { server: options.proxy.url },
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
  });
  const pid = Number(readFileSync(path.join(folder, 'browser.pid'), 'utf8'));
  const notes = noSandbox ? [`--no-sandbox: ${noSandbox}`] : [];
  return new BrowserMachine(context, {
    pid,
    viewport,
    notes,
    executable: options.executable,
    proxy: options.proxy,
  });
}
