/** The connection kit's module, as loaded. */
export type ConnectionKit = typeof import('./connection-kit.js');

let loading: Promise<ConnectionKit> | undefined;

/** Loads the connection kit once, when the first server starts or the first request to one fails. */
export function connectionKit(): Promise<ConnectionKit> {
  loading ??= import('./connection-kit.js');
  return loading;
}
