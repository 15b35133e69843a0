const KEPT_LINES = 8;
const KEPT_CHARACTERS = 800;

/**
 * The last lines a server wrote to stderr during one attempt to start it: when the start fails,
 * they are the real cause ("npm error 404 Not Found …"), which "Connection closed" is not.
 */
export class StderrTail {
  private readonly lines: string[] = [];

  add(line: string): void {
    this.lines.push(line.trim());
    if (this.lines.length > KEPT_LINES) this.lines.shift();
  }

  /** `reason`, followed by what the server last said on stderr, if anything. */
  explain(reason: string): string {
    if (this.lines.length === 0) return reason;
    const said = this.lines.join(' | ');
    const cut = said.length > KEPT_CHARACTERS ? `…${said.slice(-KEPT_CHARACTERS)}` : said;
    return `${reason}; its stderr ended: ${cut}`;
  }
}
