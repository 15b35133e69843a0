import { existsSync } from 'node:fs';
import { missingOptionalPeers } from '@toolmesh/core';
import { findChromium, findExecutable } from './find-executable.js';

/** Whether a surface can start here, and if not what to install; found by looking, never by starting. */
export interface ProbeAnswer {
  ready: boolean;
  /** What was found (ready) or what is missing and how to get it (not ready). */
  detail: string;
  /** The program that will run, when one was found. */
  executable?: string;
}

/** WebKitGTK's MiniBrowser, which Debian keeps beside the library rather than on PATH. */
export function findMiniBrowser(): string | undefined {
  return findExecutable([
    '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
    '/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
    '/usr/lib/x86_64-linux-gnu/webkitgtk-6.0/MiniBrowser',
    '/usr/lib/aarch64-linux-gnu/webkitgtk-6.0/MiniBrowser',
  ]);
}

export type Surface = 'browser' | 'desktop' | 'mobile' | 'ios';

const DESKTOP_PROGRAMS = [
  ['Xvfb', 'xvfb'],
  ['openbox', 'openbox'],
  ['xdotool', 'xdotool'],
  ['scrot', 'scrot'],
  ['xclip', 'xclip'],
] as const;

export interface ProbeOptions {
  chromium?: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** How long an answer is kept (default 30 s): probes run on every call, so they are cached. */
  ttlMs?: number;
}

/** Probes for each surface, cached for `ttlMs`, that start nothing. */
export class Probes {
  private readonly cache = new Map<string, { at: number; answer: ProbeAnswer }>();

  constructor(private readonly options: ProbeOptions = {}) {}

  answer(surface: Surface, engine = 'chromium'): ProbeAnswer {
    const key = `${surface}/${engine}`;
    const cached = this.cache.get(key);
    const now = Date.now();
    if (cached && now - cached.at < (this.options.ttlMs ?? 30_000)) return cached.answer;
    const answer = this.look(surface, engine);
    this.cache.set(key, { at: now, answer });
    return answer;
  }

  private look(surface: Surface, engine: string): ProbeAnswer {
    const env = this.options.env ?? process.env;
    const platform = this.options.platform ?? process.platform;
    switch (surface) {
      case 'browser':
        return this.browser(engine, env);
      case 'desktop': {
        if (platform !== 'linux')
          return { ready: false, detail: 'a desktop rig needs Linux (Xvfb and openbox)' };
        const missing = DESKTOP_PROGRAMS.filter(([program]) => !findExecutable([program], env));
        if (missing.length > 0) {
          return {
            ready: false,
            detail: `no Linux desktop: ${missing.map(([program]) => program).join(', ')} not found; install ${missing.map(([, pkg]) => pkg).join(' ')} (Debian)`,
          };
        }
        return { ready: true, detail: 'Xvfb, openbox, xdotool, scrot and xclip found' };
      }
      case 'mobile': {
        // Whether a device is attached is only known from an adb server, which a probe does not start.
        const adb = findExecutable(['adb'], env);
        const emulator = existsSync('/dev/kvm') ? 'an emulator can run here' : 'no /dev/kvm for an emulator';
        return adb
          ? {
              ready: true,
              detail: `adb at ${adb} (${emulator}); a rig lists devices through a private adb server and says when there is none`,
              executable: adb,
            }
          : { ready: false, detail: `no device or emulator: no adb, install adb (Debian); ${emulator}` };
      }
      case 'ios':
        return platform === 'darwin' && findExecutable(['xcrun'], env)
          ? { ready: false, detail: 'iOS simulators are not driven by this build of toolmesh-rigs yet' }
          : { ready: false, detail: 'iOS needs macOS with Xcode' };
    }
  }

  private browser(engine: string, env: NodeJS.ProcessEnv): ProbeAnswer {
    if (engine === 'firefox') {
      const firefox = findExecutable(['firefox-esr', 'firefox'], env);
      if (!firefox)
        return {
          ready: false,
          detail: 'no Firefox found: install firefox-esr (Debian), or use engine chromium',
        };
      // puppeteer-core drives Firefox only: an optional peer, so the Chromium rigs install without it.
      const driver = missingOptionalPeers(
        import.meta.url,
        ['puppeteer-core'],
        `Firefox at ${firefox} is driven by puppeteer-core`,
      );
      return driver
        ? { ready: false, detail: driver }
        : { ready: true, detail: `Firefox at ${firefox}`, executable: firefox };
    }
    if (engine === 'webkit') {
      const driver = findExecutable(['WebKitWebDriver'], env);
      const missing = [
        driver ? '' : 'WebKitWebDriver',
        findMiniBrowser() ? '' : 'MiniBrowser',
        findExecutable(['Xvfb'], env) ? '' : 'Xvfb',
      ].filter(Boolean);
      return driver && missing.length === 0
        ? { ready: true, detail: `WebKitWebDriver at ${driver}`, executable: driver }
        : {
            ready: false,
            detail: `no WebKit: ${missing.join(', ')} not found; install webkit2gtk-driver and xvfb (Debian), or use engine chromium`,
          };
    }
    if (engine !== 'chromium') {
      return {
        ready: false,
        detail: `the ${engine} engine is not available in this build: use engine chromium, firefox or webkit`,
      };
    }
    const executable = findChromium(this.options.chromium, env);
    if (!executable) {
      return {
        ready: false,
        detail:
          this.options.chromium !== undefined
            ? `no Chromium at --chromium ${this.options.chromium}: point it at a Chromium binary, or leave it out to search`
            : 'no Chromium found: install chromium (Debian) or set --chromium',
      };
    }
    return { ready: true, detail: `Chromium at ${executable}`, executable };
  }
}
