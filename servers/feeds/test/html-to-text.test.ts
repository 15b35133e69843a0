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
