// A bench whose figures would be wrong fails instead of printing them.
export function check(condition, message) {
  if (!condition) throw new Error(`bench check failed: ${message}`);
}
