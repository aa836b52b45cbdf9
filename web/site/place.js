// Landing where the reader asked to go. Charts above a target draw (and may
// grow) after the jump, so a jump to a heading is held in place while the page
// settles, until the reader scrolls. The language link carries the reader's
// place: both pages have the same sections with the same children in the same
// order (one language removed from each), so "section, child, fraction through
// it" means the same spot on the other page.
const KEY = 'posenc-place';
const HOLD_MS = 4000;
// Longer than any section id; a longer fragment is not read (nor decoded) at all.
const MAX_ID = 200;

const topOffset = () => (document.getElementById('controls')?.getBoundingClientRect().height ?? 0) + 8;

/** Where the reader is: the section at the top of the screen, its child there, and how far into it. */
export function currentPlace() {
  const line = topOffset() + 1;
  const sections = [...document.querySelectorAll('main > section[id]')];
  const section = sections.findLast((s) => s.getBoundingClientRect().top <= line) ?? sections[0];
  if (!section) return null;
  const kids = [...section.children];
  const child = Math.max(0, kids.findLastIndex((k) => k.getBoundingClientRect().top <= line));
  const box = kids[child]?.getBoundingClientRect();
  const frac = box && box.height > 0 ? Math.min(1, Math.max(0, (line - box.top) / box.height)) : 0;
  return { section: section.id, child, frac };
}

function scrollToPlace({ section, child, frac = 0 }) {
  const node = document.getElementById(section);
  const target = (child !== undefined && node?.children[child]) || node;
  if (!target) return false;
  const box = target.getBoundingClientRect();
  window.scrollTo(0, window.scrollY + box.top + frac * box.height - topOffset());
  return true;
}

/** Calls `go` now and whenever the page's height changes, until the reader scrolls, clicks or types, or HOLD_MS pass. */
function hold(go) {
  let timer;
  const watch = new ResizeObserver(go);
  const stop = () => {
    watch.disconnect();
    clearTimeout(timer);
    for (const type of ['wheel', 'touchstart', 'keydown', 'mousedown']) removeEventListener(type, stop, true);
  };
  // Registered after the current event, so the key or click that started the hold does not end it.
  setTimeout(() => {
    for (const type of ['wheel', 'touchstart', 'keydown', 'mousedown']) addEventListener(type, stop, true);
  });
  watch.observe(document.body);
  timer = setTimeout(stop, HOLD_MS);
}

/** Scrolls to a place and keeps it there while charts above it draw, until the reader takes over. */
export function land(place) {
  if (scrollToPlace(place)) hold(() => scrollToPlace(place));
}

const editing = (t) => t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName));

/** The End key: stay at the end while the charts that come into view draw. */
function holdEnd(e) {
  if (e.key !== 'End' || e.ctrlKey || e.altKey || e.metaKey || e.shiftKey || editing(e.composedPath()[0])) return;
  hold(() => window.scrollTo(0, document.documentElement.scrollHeight));
}

/** The place the other language stored, if it is one: storage may hold anything. */
function readStored() {
  let place;
  try {
    place = JSON.parse(sessionStorage.getItem(KEY) ?? 'null');
    sessionStorage.removeItem(KEY);
  } catch {
    return null; // storage disabled or not JSON: the hash alone still lands on the section
  }
  const ok = place && typeof place.section === 'string' && Number.isInteger(place.child) && place.child >= 0
    && Number.isFinite(place.frac) && place.frac >= 0 && place.frac <= 1;
  return ok ? { section: place.section, child: place.child, frac: place.frac } : null;
}

/**
 * The section id a fragment names, or '' when it names none: any URL a reader
 * pastes must open the page, so a malformed escape (#%E0%A4%A), an overlong
 * hash or an unknown id is no section rather than an exception.
 */
export function sectionOf(fragment) {
  if (typeof fragment !== 'string' || fragment.length > MAX_ID) return '';
  let id;
  try {
    id = decodeURIComponent(fragment.replace(/^#/, ''));
  } catch {
    return '';
  }
  return id && document.getElementById(id) ? id : '';
}

export function setupPlace() {
  addEventListener('keydown', holdEnd);
  // In-page links (the table of contents, "see section n"): land and hold.
  document.addEventListener('click', (e) => {
    const a = e.target.closest('a[href^="#"]');
    const id = a && sectionOf(a.getAttribute('href'));
    if (!id || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    history.pushState(null, '', `#${id}`);
    land({ section: id });
  });
  // The other language: remember the place, and put the section in the hash for a shared link.
  const other = document.getElementById('lang-toggle');
  other?.addEventListener('click', () => {
    const place = currentPlace();
    if (!place) return;
    try {
      sessionStorage.setItem(KEY, JSON.stringify(place));
    } catch { /* the hash still carries the section */ }
    other.hash = place.section;
  });
  const stored = readStored();
  const hash = sectionOf(location.hash);
  if (stored && hash && stored.section === hash) land(stored);
  else if (hash) land({ section: hash });
  addEventListener('popstate', () => {
    const id = sectionOf(location.hash);
    if (id) land({ section: id });
  });
}
