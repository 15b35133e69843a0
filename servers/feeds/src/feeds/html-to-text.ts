import { htmlparser2 } from './parsers-when-used.js';

/** Elements whose content is never text a reader should see. */
const DROPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'object',
  'embed',
  'svg',
  'math',
  'canvas',
  'form',
  'button',
  'select',
  'textarea',
  'head',
  'title',
]);
const BLOCKS = new Set([
  'p',
  'div',
  'section',
  'article',
  'header',
  'footer',
  'aside',
  'main',
  'nav',
  'figure',
  'figcaption',
  'table',
  'tr',
  'ul',
  'ol',
  'dl',
  'dt',
  'dd',
  'details',
  'summary',
  'address',
]);
const VOID = new Set(['br', 'hr', 'img', 'wbr', 'input', 'meta', 'link', 'source', 'track', 'area', 'col']);
// A Map, not an object: a tag is whatever the feed wrote, `<constructor>` included.
const WRAPS: ReadonlyMap<string, string> = new Map([
  ['strong', '**'],
  ['b', '**'],
  ['em', '*'],
  ['i', '*'],
  ['s', '~~'],
  ['del', '~~'],
]);
/** Hosts and paths that only count opens; an image from them is a tracking pixel, whatever its size. */
const TRACKER =
  /(^|[./])(pixel|beacon|track(ing)?|open|stat(s)?|analytics|doubleclick|feedburner\.com\/~r)[./?_-]/i;
const SAFE_URL = /^(https?:|mailto:)/i;
/**
 * Characters of a text that would start markdown within a line (an escape, emphasis, code, a
 * link or image, an autolink or HTML, strike-through), so that the feed's text stays text.
 */
const INLINE_MARKUP = /[\\`*_[\]<~]/g;
/** What would start a block at a line's start: a heading, quote, list item, rule or underline. */
const LINE_START_MARKUP = /^([ \t]*)(?:([#>+=-])|(\d+)([.)]))/;

/** Text as markdown that reads as the same text, never as markup. */
function escapeText(text: string, atLineStart: boolean): string {
  const escaped = text.replace(INLINE_MARKUP, '\\$&');
  if (!atLineStart) return escaped;
  return escaped.replace(
    LINE_START_MARKUP,
    (_all, indent: string, mark?: string, digits?: string, dot?: string) =>
      mark ? `${indent}\\${mark}` : `${indent}${digits}\\${dot}`,
  );
}

/** A run of backticks longer than any in `text` (and at least `shortest`), so the text cannot close it. */
function backtickFence(text: string, shortest: number): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(Math.max(shortest, longest + 1));
}

interface Open {
  tag: string;
  /** Where the element's output begins, as a mark of the Output. */
  start: number;
  attributes: Record<string, string>;
}

/**
 * The markdown being written, kept as pieces. Closing a link or an emphasis rewrites only the
 * pieces written since it opened; rewriting the whole text each time, as a string would, made an
 * article of many links take minutes and stop the server meanwhile.
 */
class Output {
  private readonly parts: string[] = [];

  add(text: string): void {
    if (text) this.parts.push(text);
  }

  mark(): number {
    return this.parts.length;
  }

  /** Removes and returns what was written since `mark`. */
  takeFrom(mark: number): string {
    return this.parts.splice(mark).join('');
  }

  endsWith(suffix: string): boolean {
    let tail = '';
    for (let index = this.parts.length - 1; index >= 0 && tail.length < suffix.length; index--) {
      tail = this.parts[index] + tail;
    }
    return tail.endsWith(suffix);
  }

  /** Whether the text is empty or ends with a line end. */
  atLineStart(): boolean {
    return this.parts.length === 0 || this.endsWith('\n');
  }

  /** Whether the text is empty or ends with a line end or a space. */
  atWordStart(): boolean {
    return this.parts.length === 0 || this.endsWith('\n') || this.endsWith(' ');
  }

  toString(): string {
    return this.parts.join('');
  }
}

function isTrackingPixel(attributes: Record<string, string>): boolean {
  const tiny = (value: string | undefined) => value !== undefined && /^\s*[01](px)?\s*$/.test(value);
  const src = attributes.src ?? '';
  return tiny(attributes.width) || tiny(attributes.height) || TRACKER.test(src.replace(/^https?:\/\//i, ''));
}

function resolveUrl(href: string | undefined, base: string | undefined): string | undefined {
  if (!href) return undefined;
  try {
    const url = base ? new URL(href, base) : new URL(href);
    // Parentheses stay unencoded in a URL and would end the markdown link early.
    return SAFE_URL.test(url.href) ? url.href.replace(/\(/g, '%28').replace(/\)/g, '%29') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reduces article HTML to readable markdown: headings, paragraphs, lists, quotes, code, links and
 * images stay; scripts, styles, embeds, forms and tracking pixels go; links that are not http(s)
 * or mailto (javascript:, data:) lose their target. `base` resolves relative links.
 */
export function htmlToMarkdown(html: string, base?: string): string {
  const out = new Output();
  let dropDepth = 0;
  let preDepth = 0;
  let codeDepth = 0;
  const open: Open[] = [];
  const listCounters: number[] = [];
  const block = () => {
    if (!out.endsWith('\n\n')) out.add(out.endsWith('\n') ? '\n' : '\n\n');
  };
  /**
   * Replaces what an inline element wrote with `render(inner)`, its surrounding spaces kept
   * outside the markup: `a<b>bold</b>word` is `a**bold**word`, `a<b> bold </b>word` is `a **bold** word`.
   */
  const wrapInline = (start: number, render: (inner: string) => string) => {
    const written = out.takeFrom(start);
    const inner = written.trim();
    const before = /^\s/.test(written) && !out.atWordStart() ? ' ' : '';
    const after = inner && /\s$/.test(written) ? ' ' : '';
    out.add(`${before}${render(inner)}${after}`);
  };

  const parser = new (htmlparser2().Parser)(
    {
      onopentag(tag, attributes) {
        if (dropDepth > 0 || DROPPED.has(tag)) {
          if (!VOID.has(tag)) dropDepth++;
          return;
        }
        if (tag === 'br') out.add('\n');
        else if (tag === 'hr') {
          block();
          out.add('---');
          block();
        } else if (tag === 'img') {
          const src = resolveUrl(attributes.src, base);
          const alt = escapeText((attributes.alt ?? '').trim(), false);
          if (src && !isTrackingPixel(attributes)) out.add(`![${alt}](${src})`);
        } else if (/^h[1-6]$/.test(tag)) {
          block();
          out.add(`${'#'.repeat(Number(tag[1]))} `);
        } else if (tag === 'li') {
          if (!out.endsWith('\n')) out.add('\n');
          const depth = Math.max(0, listCounters.length - 1);
          const counter = listCounters[listCounters.length - 1];
          if (counter !== undefined && counter > 0) {
            out.add(`${'  '.repeat(depth)}${counter}. `);
            listCounters[listCounters.length - 1] = counter + 1;
          } else out.add(`${'  '.repeat(depth)}- `);
        } else if (tag === 'pre') {
          block();
          preDepth++;
        } else if (tag === 'code' && preDepth === 0) {
          codeDepth++;
        } else if (tag === 'blockquote' || BLOCKS.has(tag)) block();
        if (tag === 'ul') listCounters.push(0);
        if (tag === 'ol') listCounters.push(1);
        if (!VOID.has(tag)) open.push({ tag, start: out.mark(), attributes });
      },
      ontext(data) {
        if (dropDepth > 0) return;
        if (preDepth > 0) {
          out.add(data);
          return;
        }
        const collapsed = data.replace(/\s+/g, ' ');
        const text = out.atWordStart() ? collapsed.replace(/^ /, '') : collapsed;
        out.add(codeDepth > 0 ? text : escapeText(text, out.atLineStart()));
      },
      onclosetag(tag, implied) {
        if (dropDepth > 0) {
          if (!VOID.has(tag)) dropDepth--;
          return;
        }
        if (VOID.has(tag) && !implied) return;
        const index = open.map((entry) => entry.tag).lastIndexOf(tag);
        if (index < 0) return;
        const [entry] = open.splice(index, 1) as [Open];
        if (tag === 'a') {
          const href = resolveUrl(entry.attributes.href, base);
          wrapInline(entry.start, (label) =>
            href && label && label !== href ? `[${label}](${href})` : label,
          );
        } else if (WRAPS.get(tag) && preDepth === 0) {
          const mark = WRAPS.get(tag);
          wrapInline(entry.start, (inner) => (inner ? `${mark}${inner}${mark}` : ''));
        } else if (tag === 'code' && preDepth === 0) {
          codeDepth--;
          wrapInline(entry.start, (code) => {
            if (!code) return '';
            const fence = backtickFence(code, 1);
            const pad = code.startsWith('`') || code.endsWith('`') ? ' ' : '';
            return `${fence}${pad}${code}${pad}${fence}`;
          });
        } else if (tag === 'pre') {
          preDepth--;
          const code = out.takeFrom(entry.start).replace(/^\n+|\s+$/g, '');
          const fence = backtickFence(code, 3);
          out.add(`${fence}\n${code}\n${fence}`);
          block();
        } else if (tag === 'blockquote') {
          const quoted = out
            .takeFrom(entry.start)
            .trim()
            .split('\n')
            .map((line) => (line ? `> ${line}` : '>'))
            .join('\n');
          out.add(quoted);
          block();
        } else if (tag === 'ul' || tag === 'ol') {
          listCounters.pop();
          block();
        } else if (tag === 'td' || tag === 'th') out.add(' ');
        else if (/^h[1-6]$/.test(tag) || tag === 'blockquote' || BLOCKS.has(tag)) block();
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return tidy(out.toString());
}

/** Trims each line's end, drops empty list items and runs of blank lines, outside code fences. */
function tidy(markdown: string): string {
  let fence = '';
  const lines: string[] = [];
  for (const raw of markdown.split('\n')) {
    const run = /^`{3,}/.exec(raw)?.[0];
    if (!fence && run) fence = run;
    else if (fence && run && run.length >= fence.length && raw.trim() === run) fence = '';
    const fenced = fence !== '' || run !== undefined;
    const line = fenced ? raw : raw.replace(/[ \t]+$/, '');
    if (!fenced && /^\s*([-*]|\d+\.)\s*$/.test(line)) continue;
    if (!fenced && line.trim() === '' && (lines.length === 0 || lines[lines.length - 1] === '')) continue;
    lines.push(fenced ? line : line.replace(/^ +(?![-\d>])/, ''));
  }
  return lines.join('\n').trim();
}

const MARKUP = /&(#\d+|#x[\da-f]+|[a-z]+\d*);|<\/?[a-z][\w-]*(\s[^>]*)?\/?>/i;

/**
 * A title as plain text. Titles are text by the specs but often carry markup or a second layer of
 * escaping (`A &amp;amp; B`), so one that looks like markup is read as HTML; any other is kept as written
 * (`5 < 6` stays).
 */
export function titleText(title: string): string {
  if (!MARKUP.test(title)) return title.replace(/\s+/g, ' ').trim();
  let text = '';
  let dropDepth = 0;
  const parser = new (htmlparser2().Parser)(
    {
      onopentag(tag) {
        if ((dropDepth > 0 || DROPPED.has(tag)) && !VOID.has(tag)) dropDepth++;
      },
      ontext(data) {
        if (dropDepth === 0) text += data;
      },
      onclosetag(tag) {
        if (dropDepth > 0 && !VOID.has(tag)) dropDepth--;
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(title);
  parser.end();
  return text.replace(/\s+/g, ' ').trim();
}

/** The first `limit` characters of the text, cut at a word, for lists and digests. */
export function excerpt(markdown: string, limit = 280): string {
  // One pass, so that an escaped character is kept as the text it stands for and not read as markup.
  const flat = markdown
    .replace(
      /\\([!-/:-@[-`{-~])|!\[(?:\\.|[^\]\\])*\]\([^)]*\)|\[((?:\\.|[^\]\\])*)\]\([^)]*\)|[#>*`~_]+/g,
      (_all, escaped?: string, label?: string) =>
        escaped ?? (label === undefined ? '' : label.replace(/\\([!-/:-@[-`{-~])/g, '$1')),
    )
    .replace(/\s+/g, ' ')
    .trim();
  if (flat.length <= limit) return flat;
  const cut = flat.slice(0, limit);
  const space = cut.lastIndexOf(' ');
  return `${space > limit / 2 ? cut.slice(0, space) : cut}…`;
}
