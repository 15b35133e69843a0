import { describe, expect, it } from 'vitest';
import { excerpt, htmlToMarkdown, titleText } from '../src/feeds/html-to-text.js';

describe('htmlToMarkdown', () => {
  it('drops scripts, styles, embeds and tracking pixels, and keeps links and emphasis', () => {
    const markdown = htmlToMarkdown(
      `<p>We compared <strong>three</strong> parsers.</p><script>alert('x')</script><style>p{color:red}</style>
       <img src="https://track.example.net/pixel.gif" width="1" height="1">
       <img src="https://cdn.example.com/open.gif?u=1"><iframe src="https://ads.example"></iframe>
       <p>Read <a href="/more">more</a> and <a href="javascript:evil()">this</a>.</p>
       <img src="chart.png" alt="A chart">`,
      'https://blog.example.com/posts/x',
    );
    expect(markdown).toBe(
      'We compared **three** parsers.\n\nRead [more](https://blog.example.com/more) and this.\n\n![A chart](https://blog.example.com/posts/chart.png)',
    );
  });

  it('renders headings, lists, quotes and code blocks', () => {
    const markdown = htmlToMarkdown(
      '<h2>History</h2><ul><li>one</li><li>two <em>words</em></li></ul><ol><li>first</li><li>second</li></ol><blockquote><p>quoted</p><p>twice</p></blockquote><pre><code>let x = 1;\n  x++;</code></pre>',
    );
    expect(markdown).toBe(
      '## History\n\n- one\n- two *words*\n\n1. first\n2. second\n\n> quoted\n>\n> twice\n\n```\nlet x = 1;\n  x++;\n```',
    );
  });

  it('decodes entities and survives unclosed tags', () => {
    expect(htmlToMarkdown('Caf&eacute; &amp; <b>bar')).toBe('Café & **bar**');
    expect(htmlToMarkdown('<div><p>open<span>')).toBe('open');
  });

  it('takes tags named like Object properties as unknown tags', () => {
    expect(htmlToMarkdown('<constructor>plain</constructor> and <tostring>text</tostring>')).toBe(
      'plain and text',
    );
  });
});

describe('titleText', () => {
  it('reads a title that looks like markup as HTML, and keeps any other as written', () => {
    expect(titleText('A &amp; B')).toBe('A & B');
    expect(titleText('Compilers &amp; <em>you</em>')).toBe('Compilers & you');
    expect(titleText('5 < 6 and C# > C')).toBe('5 < 6 and C# > C');
    expect(titleText('  spaced\n title ')).toBe('spaced title');
    expect(titleText('x<script>alert(1)</script>y')).toBe('xy');
  });
});

describe('excerpt', () => {
  it('flattens markdown and cuts at a word', () => {
    expect(excerpt('## Title\n\nSome [linked](https://x) *text* here', 18)).toBe('Title Some linked…');
    expect(excerpt('short')).toBe('short');
  });
});

describe('htmlToMarkdown keeps text as text', () => {
  it('escapes markdown written as text, so it never becomes a link, emphasis or HTML', () => {
    expect(htmlToMarkdown('<p>[click me](javascript:alert(1))</p>')).toBe(
      '\\[click me\\](javascript:alert(1))',
    );
    expect(htmlToMarkdown('<p>![x](https://t.example/p.gif) *not bold* a_b `c` ~~d~~ \\n</p>')).toBe(
      '!\\[x\\](https://t.example/p.gif) \\*not bold\\* a\\_b \\`c\\` \\~\\~d\\~\\~ \\\\n',
    );
    expect(htmlToMarkdown('<p>&lt;img src=x onerror=alert(1)&gt;</p>')).toBe(
      '\\<img src=x onerror=alert(1)>',
    );
    expect(
      htmlToMarkdown('<p># not a heading</p><p>> not a quote</p><p>1. not a list</p><p>- nor this</p>'),
    ).toBe('\\# not a heading\n\n\\> not a quote\n\n1\\. not a list\n\n\\- nor this');
    expect(htmlToMarkdown('<p>5 > 3, C# and 2.5</p>')).toBe('5 > 3, C# and 2.5');
  });

  it('keeps markup out of link targets and image descriptions', () => {
    expect(htmlToMarkdown('<a href="https://a.example/x)[y](javascript:alert(1))">go</a>')).toBe(
      '[go](https://a.example/x%29[y]%28javascript:alert%281%29%29)',
    );
    expect(htmlToMarkdown('<img src="https://a.example/i.png" alt="](javascript:alert(1))">')).toBe(
      '![\\](javascript:alert(1))](https://a.example/i.png)',
    );
  });

  it('keeps inline boundaries: no space is added or lost around emphasis, links and code', () => {
    expect(htmlToMarkdown('a<b>bold</b>word')).toBe('a**bold**word');
    expect(htmlToMarkdown('a<b> bold </b>word and <a href="https://a.example/">link</a>, done')).toBe(
      'a **bold** word and [link](https://a.example/), done',
    );
    expect(htmlToMarkdown('call <code>f(*args)</code>; a <code>x`y</code> b')).toBe(
      'call `f(*args)`; a ``x`y`` b',
    );
    expect(htmlToMarkdown('<code>`tick</code>')).toBe('`` `tick ``');
  });

  it('fences a pre block longer than any backtick run in it, so it cannot break out', () => {
    const markdown = htmlToMarkdown('<pre>before\n```\n# escaped?\n```\nafter</pre><p>then *text*</p>');
    expect(markdown).toBe('````\nbefore\n```\n# escaped?\n```\nafter\n````\n\nthen \\*text\\*');
  });

  it('gives excerpts the text as written', () => {
    expect(
      excerpt(
        htmlToMarkdown('<p>[click me](javascript:x) a_b and <a href="https://a.example/">a [link]</a></p>'),
      ),
    ).toBe('[click me](javascript:x) a_b and a [link]');
  });
});
