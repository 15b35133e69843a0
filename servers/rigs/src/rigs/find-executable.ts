import { accessSync, constants, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The first of `names` found executable on PATH (a name with a slash is taken as a path). */
export function findExecutable(
  names: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const folders = (env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(path.delimiter).filter(Boolean);
  for (const name of names) {
    const candidates = name.includes('/') ? [name] : folders.map((folder) => path.join(folder, name));
    for (const candidate of candidates) {
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // Not here.
      }
    }
  }
  return undefined;
}

/** Chromium binaries Playwright downloaded into its cache, newest first. */
function playwrightCacheChromium(env: NodeJS.ProcessEnv): string[] {
  const cache = env.PLAYWRIGHT_BROWSERS_PATH ?? path.join(os.homedir(), '.cache', 'ms-playwright');
  let entries: string[];
  try {
    entries = readdirSync(cache).sort().reverse();
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    if (entry.startsWith('chromium_headless_shell-')) {
      return [
        path.join(cache, entry, 'chrome-linux', 'headless_shell'),
        path.join(cache, entry, 'chrome-headless-shell-linux64', 'chrome-headless-shell'),
      ];
    }
    if (entry.startsWith('chromium-')) return [path.join(cache, entry, 'chrome-linux', 'chrome')];
    return [];
  });
}

/**
 * The Chromium to drive: the configured path, else the first found of chromium-headless-shell,
 * chromium, google-chrome, then Playwright's own downloads.
 */
export function findChromium(
  configured: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (configured !== undefined) return findExecutable([path.resolve(configured)], env);
  return findExecutable(
    [
      'chromium-headless-shell',
      'chromium',
      'google-chrome',
      'google-chrome-stable',
      ...playwrightCacheChromium(env),
    ],
    env,
  );
}
