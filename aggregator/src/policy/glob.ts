/** Escapes everything but the glob's own `*` and `?`. */
function globSource(pattern: string): string {
  return pattern
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[\\^$.+()[\]{}|]/g, '\\$&')))
    .join('');
}

/** A tool-name glob: `*` stands for any run of characters, `?` for one; case matters, as in tool names. */
export function globMatcher(pattern: string): (name: string) => boolean {
  const expression = new RegExp(`^${globSource(pattern)}$`);
  return (name) => expression.test(name);
}
