import { findOnPath } from '../sandbox/find-bwrap.js';

/**
 * How a person runs toolmesh from a shell, for the commands its messages name: `toolmesh` when
 * one is on PATH (installed, or linked from a clone), else this Node and this bin by absolute
 * path, which work from anywhere.
 */
export function toolmeshInvocation(): string {
  if (findOnPath('toolmesh', process.env.PATH)) return 'toolmesh';
  return `${process.execPath} ${process.argv[1] ?? 'toolmesh'}`;
}
