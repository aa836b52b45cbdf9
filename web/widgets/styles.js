// Widget styles as a constructed stylesheet: a strict CSP (no 'unsafe-inline')
// blocks <style> elements, but not adoptedStyleSheets.
const CSS = `
:host { display: block; font: 14px/1.45 system-ui, "Noto Sans CJK SC", "PingFang SC", sans-serif;
  color: #1d2430; margin: 1em 0; --accent: #3358c4; }
:host([hidden]) { display: none; }
.pe { position: relative; border: 1px solid #d5dae3; border-radius: 8px; padding: 10px 12px; background: #fff; }
.title { font-weight: 600; margin: 0 0 6px; }
.note { color: #7a5a00; background: #fff7dc; border-radius: 4px; padding: 3px 8px; margin: 4px 0; }
.err { color: #9d1c1c; background: #fdeaea; border-radius: 4px; padding: 6px 8px; margin: 4px 0; font-weight: 600; }
.controls { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; margin: 4px 0 8px; }
.controls label { display: inline-flex; gap: 6px; align-items: center; }
input[type=number] { width: 5.5em; }
input[type=text] { width: 11em; }
input, select, button { font: inherit; }
button { border: 1px solid #b9c2d3; background: #f4f6fa; border-radius: 5px; padding: 2px 10px; cursor: pointer; }
button:hover { background: #e6ebf5; }
:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.charts { display: grid; gap: 10px; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); }
.chart { position: relative; min-width: 0; }
.chart canvas { max-width: 100%; }
.sub { font-size: 12px; color: #4a5568; margin: 2px 0; text-align: center; }
.caption { font-size: 13px; color: #4a5568; margin: 6px 0 2px; }
.export { display: flex; gap: 6px; justify-content: flex-end; margin-top: 4px; }
.export button { font-size: 12px; padding: 1px 8px; }
.tip { position: absolute; pointer-events: none; background: rgba(20,24,33,.92); color: #fff; font-size: 12px;
  padding: 4px 7px; border-radius: 4px; white-space: pre; z-index: 2; }
table { border-collapse: collapse; margin: 6px 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d5dae3; padding: 2px 7px; text-align: right; }
thead th { background: #f4f6fa; }
tbody th { text-align: left; font-weight: 600; background: #fafbfd; }
.tables { display: flex; flex-wrap: wrap; gap: 4px 24px; overflow-x: auto; }
.verdict { margin: 4px 0; }
.good { color: #1d6b32; font-weight: 600; }
.bad { color: #9d1c1c; font-weight: 600; }
.hidden { display: none !important; }
`;

let sheet;
/** Gives a shadow root the shared widget stylesheet (one sheet object for all widgets). */
export function adoptStyles(root) {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
  }
  root.adoptedStyleSheets = [sheet];
}
