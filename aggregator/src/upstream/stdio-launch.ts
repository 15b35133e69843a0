import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { StdioServerConfig } from '../config/schema.js';
import { findBwrap, INSTALL_BWRAP } from '../sandbox/find-bwrap.js';
import { sandboxedCommand } from '../sandbox/sandboxed-command.js';

/** How to spawn one stdio server, and what a person should know about it. */
export interface StdioLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Set when the config asked for a sandbox it did not get (`preferred` without bwrap). */
  sandboxWarning?: string;
}

/** A server whose config says `sandbox: "required"` cannot be sandboxed here, so it is not started. */
export class SandboxRequiredError extends Error {}

/**
 * The command line for a stdio server: as configured, or wrapped in a bubblewrap sandbox when
 * its `sandbox` setting asks for one and this machine can make one. A server host names the
 * `hostedPrograms` it will load, for the sandbox to show them.
 */
export function stdioLaunch(config: StdioServerConfig, hostedPrograms: readonly string[] = []): StdioLaunch {
  const plain: StdioLaunch = {
    command: config.command,
    args: config.args,
    // A minimal environment (PATH, HOME, …) plus what the config names: no secrets leak to children.
    env: { ...getDefaultEnvironment(), ...config.env },
    ...(config.cwd && { cwd: config.cwd }),
  };
  if (config.sandbox === 'off') return plain;
  const bwrap = findBwrap();
  if (!bwrap.available) {
    if (config.sandbox === 'required')
      throw new SandboxRequiredError(
        `not started: its sandbox is "required" but ${bwrap.reason}. To fix: ${INSTALL_BWRAP}, or set "sandbox": "preferred" (run it unsandboxed, with a warning) or "off" in its config entry`,
      );
    return {
      ...plain,
      sandboxWarning: `running unsandboxed: its sandbox is "preferred" but ${bwrap.reason}; to sandbox it, ${INSTALL_BWRAP}`,
    };
  }
  const sandboxed = sandboxedCommand(
    {
      command: config.command,
      args: config.args,
      roots: config.roots ?? [],
      writableRoots: config.writableRoots,
      network: config.network,
      env: config.env,
      ...(config.cwd && { cwd: config.cwd }),
      // The stdio transport merges these into whatever environment it is given.
      ambientVariables: Object.keys(getDefaultEnvironment()),
      hostedPrograms,
    },
    bwrap,
  );
  return { ...sandboxed, ...(config.cwd && { cwd: config.cwd }) };
}
