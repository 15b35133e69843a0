/** A mistake in how toolmesh was invoked: the CLI prints it and exits 2. */
export class UsageError extends Error {}

/** A flag that takes a whole number, checked here so the message names the flag, the value and the range. */
export function wholeNumberOption(flag: string, text: string, range: { min: number; max?: number }): number {
  const value = Number(text);
  if (
    text.trim() === '' ||
    !Number.isInteger(value) ||
    value < range.min ||
    (range.max !== undefined && value > range.max)
  ) {
    const allowed =
      range.max === undefined ? `, at least ${range.min}` : ` from ${range.min} to ${range.max}`;
    throw new UsageError(`${flag} takes a whole number${allowed}, not "${text}"`);
  }
  return value;
}
