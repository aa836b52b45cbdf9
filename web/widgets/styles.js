// Widget styles as a constructed stylesheet: a strict CSP (no 'unsafe-inline')
// blocks <style> elements, but not adoptedStyleSheets.
// Theming goes through the --pe-* custom properties (documented in docs/widgets.md):
// they inherit into the shadow roots, so a page sets them on any ancestor.
const CSS = `
:host { display: block; max-width: 100%; min-width: 0; margin: 1em 0; container: pe / inline-size;
  font: 14px/1.45 var(--pe-font, system-ui, "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", "WenQuanYi Micro Hei", sans-serif);
  color: var(--pe-fg, #1d2430); --accent: var(--pe-accent, #3358c4); --muted: var(--pe-muted, #4a5568);
  --line: var(--pe-border, #d5dae3); --bg: var(--pe-bg, #fff); --soft: var(--pe-soft, #f4f6fa); }
:host([hidden]) { display: none; }
/* Until it first draws, an element stays inside the height a page reserves for it (--reserve): its
   empty chart box could be taller, and a link followed meanwhile landed off its heading by that much. */
:host(:not([data-state])) .pe { max-height: var(--reserve, none); overflow: hidden; }
.pe { position: relative; border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; background: var(--bg); }
.title { font-weight: 600; margin: 0 0 6px; }
.note { color: var(--pe-note-fg, #7a5a00); background: var(--pe-note-bg, #fff7dc); border-radius: 4px; padding: 3px 8px; margin: 4px 0; }
.err { color: var(--pe-error-fg, #9d1c1c); background: var(--pe-error-bg, #fdeaea); border-radius: 4px; padding: 6px 8px;
  margin: 4px 0; font-weight: 600; }
.controls { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; margin: 4px 0 8px; min-width: 0; }
.controls label { display: inline-flex; flex-wrap: wrap; gap: 2px 6px; align-items: center; max-width: 100%; min-width: 0; }
input[type=number] { width: 5.5em; }
input[type=text] { width: 11em; max-width: 100%; }
input[type=range] { max-width: 100%; }
select { max-width: 100%; text-overflow: ellipsis; }
input, select, button { font: inherit; }
button { border: 1px solid var(--pe-button-border, #6b7486); background: var(--soft); color: inherit; border-radius: 5px;
  padding: 2px 10px; cursor: pointer; }
button:hover { filter: brightness(0.95); }
:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.charts { display: grid; gap: 10px; grid-template-columns: repeat(auto-fit, minmax(min(260px, 100%), 1fr)); }
.chart { position: relative; min-width: 0; }
/* The plot box has its size before anything is drawn (aspect-ratio), and the
   chart follows the box (Chart.js watches it with a ResizeObserver), so a chart
   shrinks and grows back with its container and never pushes the page wider. */
.plot { position: relative; width: 100%; aspect-ratio: var(--aspect, 1.6); min-height: 180px; }
.plot canvas { position: absolute; inset: 0; }
.plot.free { aspect-ratio: auto; min-height: 0; }
.plot.free canvas { position: static; display: block; max-width: 100%; }
@container pe (max-width: 500px) { .plot { aspect-ratio: var(--phone-aspect, 1); } }
.sub { font-size: 12px; color: var(--muted); margin: 2px 0; text-align: center; }
.caption { font-size: 13px; color: var(--muted); margin: 6px 0 2px; overflow-wrap: anywhere; }
.export { display: flex; gap: 6px; justify-content: flex-end; margin-top: 4px; }
.export button { font-size: 12px; padding: 1px 8px; }
.tip { position: absolute; pointer-events: none; background: rgba(20,24,33,.92); color: #fff; font-size: 12px;
  padding: 4px 7px; border-radius: 4px; white-space: pre; z-index: 2; }
table { border-collapse: collapse; margin: 6px 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 2px 7px; text-align: right; }
thead th { background: var(--soft); }
tbody th { text-align: left; font-weight: 600; background: var(--soft); }
/* Tables scroll inside their own box, which the keyboard can reach (tabindex=0). */
.tables { display: flex; flex-wrap: wrap; gap: 4px 24px; overflow-x: auto; max-width: 100%; }
/* <pe-model>'s position ids: a strip of tokens and small grids whose cells hold numbers, shaded by value. */
.strip { display: flex; flex-wrap: wrap; gap: 3px; list-style: none; padding: 0; margin: 4px 0; }
.tok { border: 1px solid var(--line); border-radius: 4px; padding: 0 5px; font-variant-numeric: tabular-nums; }
.tok.img { background: var(--soft); }
.idgrid caption { font-size: 12px; color: var(--muted); text-align: left; }
.ids .tables { gap: 4px 10px; }
.idgrid th, .idgrid td { padding: 1px 2px; min-width: 1.3em; font-size: 12px; text-align: center; }
.idgrid td { background: color-mix(in srgb, var(--accent) calc(var(--v, 0) * 45%), var(--bg)); }
.verdict { margin: 4px 0; overflow-wrap: anywhere; }
.good { color: var(--pe-good-fg, #1d6b32); font-weight: 600; }
.bad { color: var(--pe-error-fg, #9d1c1c); font-weight: 600; }
/* <pe-lab>: each model's name beside its own progress bar, one row per model
   (inline, a name and its bar could wrap onto different lines at phone width
   and a bar would sit beside the next model's name); attention maps two to a
   row where they fit; an encoding's name broken only at a space; a seed range on a line of its own. */
.lab-all { display: block; width: 100%; }
.lab-bars { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 8px; align-items: center; margin: 4px 0; }
.lab-bars label { display: contents; }
.lab-bars progress { width: 100%; }
.lab-summary th, .lab-summary td { padding: 2px 5px; }
.lab-summary th:first-child { word-break: keep-all; }
.lab-summary .range { display: block; white-space: nowrap; font-size: 11px; color: var(--muted); }
.maps figure { margin: 0; }
.maps figcaption { font-size: 12px; color: var(--muted); }
.hidden { display: none !important; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%);
  white-space: nowrap; margin: -1px; padding: 0; border: 0; }
`;

/** Each document's sheet: a constructed sheet serves only the document it was made in. */
const sheets = new WeakMap();
/**
 * Gives a shadow root the shared widget stylesheet of its document (one sheet object for all its widgets); called
 * again when the element is connected: moved into a same-origin iframe, it lost the page's sheet (the browser drops
 * another document's) and drew unstyled, its hidden error box shown. A document without a window gets none.
 */
export function adoptStyles(root) {
  const doc = root.ownerDocument;
  const Sheet = doc.defaultView?.CSSStyleSheet;
  if (!Sheet) return;
  let sheet = sheets.get(doc);
  if (!sheet) {
    sheet = new Sheet();
    sheet.replaceSync(CSS);
    sheets.set(doc, sheet);
  }
  if (root.adoptedStyleSheets?.[0] !== sheet) root.adoptedStyleSheets = [sheet];
}
