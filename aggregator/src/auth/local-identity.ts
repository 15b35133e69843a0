import os from 'node:os';

/** The person running toolmesh, for sessions no token names: `local:<login>`. */
export function localIdentity(): string {
  try {
    return `local:${os.userInfo().username}`;
  } catch {
    return `local:${process.env.USER ?? 'user'}`;
  }
}
