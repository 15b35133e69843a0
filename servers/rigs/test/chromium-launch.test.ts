import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { headlessBinary } from '../src/rigs/browser/chromium-launch.js';
import { tempDir } from './fixture.js';

const dir = tempDir('toolmesh-rigs-launch-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SHELL = '/usr/lib/chromium/chromium-headless-shell';

describe('headlessBinary', () => {
  it.runIf(existsSync(SHELL))(
    "starts the headless shell under Debian's chromium scripts, and says so",
    () => {
      const script = path.join(dir, 'chromium');
      writeFileSync(script, '#!/bin/sh\nLIBDIR=/usr/lib/$APPNAME\nexec $LIBDIR/chromium "$@"\n');
      chmodSync(script, 0o755);
      expect(headlessBinary(script)).toEqual({
        binary: SHELL,
        note: `${script} is a script over /usr/lib/chromium: rigs starts its headless shell, ${SHELL}`,
      });
    },
  );

  it('keeps a binary, a script over another browser, and a path that is not there', () => {
    const binary = path.join(dir, 'chrome');
    writeFileSync(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0]));
    const other = path.join(dir, 'other-browser');
    writeFileSync(other, '#!/bin/sh\nexec /opt/other/browser "$@"\n');
    expect(headlessBinary(binary)).toEqual({ binary });
    expect(headlessBinary(other)).toEqual({ binary: other });
    expect(headlessBinary(path.join(dir, 'missing'))).toEqual({ binary: path.join(dir, 'missing') });
  });
});
