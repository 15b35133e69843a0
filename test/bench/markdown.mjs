// Markdown pieces for the generated benchmarks page.
export const count = (n) => n.toLocaleString('en-US');

export function table(header, rows) {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}
