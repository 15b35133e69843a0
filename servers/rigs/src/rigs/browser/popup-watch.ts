/**
 * Chromium shows a popup to playwright only once it has set the new page up, which on a busy
 * machine trails the click that opened it by far more than a fixed wait. So every page counts the
 * popups it asks for (window.open, a link or form aimed at another window) where the machine can
 * read the count after an action, and the machine waits for the page of each one it asked for.
 */
const COUNT = "Symbol.for('toolmesh.rigs.popupsAsked')";

/** Installed in every page before its own scripts (playwright's addInitScript). */
export const POPUP_WATCH_SCRIPT = `(() => {
  const count = ${COUNT};
  window[count] = 0;
  const asked = () => { window[count] += 1; };
  const open = window.open;
  window.open = function (...args) { asked(); return open.apply(this, args); };
  const elsewhere = (target) => typeof target === 'string' && target !== '' && !['_self', '_parent', '_top'].includes(target.toLowerCase());
  document.addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a[href], area[href]') : null;
    if (link && (elsewhere(link.target) || event.ctrlKey || event.metaKey || event.shiftKey)) asked();
  }, true);
  document.addEventListener('submit', (event) => {
    if (event.target instanceof HTMLFormElement && elsewhere(event.target.target)) asked();
  }, true);
})();`;

/** The page's count, read after an action (0 in a page that has none yet). */
export const POPUPS_ASKED = `window[${COUNT}] ?? 0`;
