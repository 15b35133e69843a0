/**
 * The longest prefix of `text` (in UTF-16 code units, never ending inside a surrogate pair)
 * for which `fits` holds. `fits` must be monotone: true for a prefix, true for every shorter one.
 * Found by bisection, since the size that matters (the JSON form) grows unevenly: a control
 * character takes six bytes there, an emoji four, an ASCII letter one.
 */
export function longestFittingPrefix(text: string, fits: (prefix: string) => boolean): string {
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(text.slice(0, middle))) low = middle;
    else high = middle - 1;
  }
  const lastUnit = text.charCodeAt(low - 1);
  const splitsPair = low > 0 && lastUnit >= 0xd800 && lastUnit <= 0xdbff;
  return text.slice(0, splitsPair ? low - 1 : low);
}
