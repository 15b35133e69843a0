/**
 * An accessibility outline built inside the page: roles from ARIA or the tag, names from ARIA,
 * labels, alt, title or text, and a ref for each element with a role. The refs live in the page
 * under a key rigs chose at random, so the page's own scripts could see them: they name elements,
 * they grant nothing.
 *
 * The budget is applied while walking: the walk skips the `offset` lines an earlier page gave,
 * collects lines until they pass `budget` bytes, and stops there, so a page of a huge document
 * costs what the page holds, not what the document holds. With `find`, only the lines that
 * mention it (case-insensitive) and their ancestors are counted, each match keeping its place.
 *
 * Kept as source text, since it runs in the page and this package is built without the DOM types.
 * Returns `{ lines, more }`, or null when the scope matches nothing.
 */
export const PAGE_OUTLINE = `(({ key, scope, depth, find, offset, budget }) => {
  const store = (globalThis[key] ??= { byRef: new Map(), byElement: new WeakMap(), next: 0 });
  const TAGS = { A: 'link', BUTTON: 'button', H1: 'heading', H2: 'heading', H3: 'heading', H4: 'heading', H5: 'heading',
    H6: 'heading', SELECT: 'combobox', TEXTAREA: 'textbox', IMG: 'img', UL: 'list', OL: 'list', LI: 'listitem',
    TABLE: 'table', TR: 'row', TD: 'cell', TH: 'columnheader', NAV: 'navigation', MAIN: 'main', FORM: 'form',
    P: 'paragraph', OPTION: 'option', DIALOG: 'dialog', HEADER: 'banner', FOOTER: 'contentinfo' };
  const INPUTS = { checkbox: 'checkbox', radio: 'radio', submit: 'button', button: 'button', reset: 'button',
    number: 'spinbutton', range: 'slider', file: 'button', hidden: null };
  const roleOf = (el) => el.getAttribute('role') ||
    (el.tagName === 'INPUT' ? (INPUTS[el.type] === undefined ? 'textbox' : INPUTS[el.type]) : TAGS[el.tagName] || null);
  const clean = (text) => (text || '').replace(/\\s+/g, ' ').trim().slice(0, 200);
  // A label's text without the controls inside it (a select's options are not its name).
  const labelText = (label) => [...label.childNodes]
    .filter((node) => node.nodeType === 3 || !['SELECT', 'TEXTAREA', 'INPUT', 'BUTTON'].includes(node.tagName))
    .map((node) => node.textContent).join(' ');
  const nameOf = (el, role) => {
    const labelledBy = el.getAttribute('aria-labelledby');
    const named = el.getAttribute('aria-label') ||
      (labelledBy && labelledBy.split(/\\s+/).map((id) => document.getElementById(id)?.textContent || '').join(' ')) ||
      (el.labels && el.labels[0] && labelText(el.labels[0])) || el.getAttribute('alt') || el.getAttribute('title') ||
      el.getAttribute('placeholder') || (el.tagName === 'INPUT' && ['submit', 'button'].includes(el.type) ? el.value : '') ||
      (['button', 'link', 'heading', 'option', 'cell', 'columnheader', 'listitem', 'paragraph'].includes(role) ? el.textContent : '');
    return clean(named);
  };
  const hidden = (el) => el.hidden || el.getAttribute('aria-hidden') === 'true' ||
    (() => { const style = getComputedStyle(el); return style.display === 'none' || style.visibility === 'hidden'; })();
  const refOf = (el) => {
    let ref = store.byElement.get(el);
    if (!ref) { ref = 'e' + ++store.next; store.byElement.set(el, ref); }
    store.byRef.set(ref, el);
    return ref;
  };
  const needle = find ? find.toLowerCase() : '';
  const encoder = new TextEncoder();
  const lines = [];
  let counted = 0;
  let used = 0;
  const FULL = {};
  // Lines waiting for a match below them (only with find): each is counted when a match needs it.
  const pending = [];
  const count = (line) => {
    if (counted++ < offset) return;
    lines.push(line);
    used += encoder.encode(line).length + 1;
    if (used > budget) throw FULL;
  };
  const emit = (line, level) => {
    if (!needle) return count(line);
    while (pending.length > 0 && pending[pending.length - 1].level >= level) pending.pop();
    if (line.toLowerCase().includes(needle)) {
      for (const ancestor of pending) if (!ancestor.counted) { ancestor.counted = true; count(ancestor.line); }
      count(line);
      pending.push({ line, level, counted: true });
    } else {
      pending.push({ line, level, counted: false });
    }
  };
  const leafRoles = new Set(['button', 'link', 'heading', 'option', 'textbox', 'paragraph', 'cell', 'columnheader']);
  const walk = (node, level) => {
    if (depth !== undefined && level >= depth) return;
    for (const child of node.childNodes) {
      if (child.nodeType === 3) {
        const text = clean(child.textContent);
        if (text) emit('  '.repeat(level) + '- text: ' + text, level);
        continue;
      }
      if (child.nodeType !== 1 || ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(child.tagName) || hidden(child)) continue;
      const role = roleOf(child);
      if (!role || role === 'presentation' || role === 'none') { walk(child, level); continue; }
      const name = nameOf(child, role);
      emit('  '.repeat(level) + '- ' + role + (name ? ' ' + JSON.stringify(name) : '') + ' [ref=' + refOf(child) + ']', level);
      if (!leafRoles.has(role)) walk(child, level + 1);
    }
  };
  let root = document.body;
  if (scope) {
    root = /^e\\d+$/.test(scope) ? store.byRef.get(scope) : document.querySelector(scope);
    if (!root || !root.isConnected) return null;
  }
  try {
    if (root) walk(root, 0);
  } catch (stop) {
    if (stop !== FULL) throw stop;
    return { lines, more: true };
  }
  return { lines, more: false };
})`;

/** In the page: whether the ref's element is still there, and if so the element. */
export const PAGE_REF = `((key, ref) => { const el = globalThis[key]?.byRef.get(ref); return el && el.isConnected ? el : null; })`;
