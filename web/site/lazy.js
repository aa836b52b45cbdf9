// Loads code when it is first needed. Each <pe-*> element on the page is
// defined (its module imported) when it comes within a screen or so of the
// viewport; until then it is an unknown element holding its reserved height.
// Tutorial-only modules (data-module="...") are mounted the same way.
const WIDGETS = {
  'pe-heatmap': () => import('../widgets/heatmap.js').then((m) => m.PeHeatmap),
  'pe-curves': () => import('../widgets/curves.js').then((m) => m.PeCurves),
  'pe-circles': () => import('../widgets/circles.js').then((m) => m.PeCircles),
  'pe-dot-heatmap': () => import('../widgets/dot-heatmap.js').then((m) => m.PeDotHeatmap),
  'pe-toy-attention': () => import('../widgets/toy-attention.js').then((m) => m.PeToyAttention),
  'pe-linear': () => import('../widgets/linear.js').then((m) => m.PeLinear),
  'pe-norms': () => import('../widgets/norms.js').then((m) => m.PeNorms),
  'pe-attention': () => import('../widgets/attention.js').then((m) => m.PeAttention),
  'pe-conventions': () => import('../widgets/conventions.js').then((m) => m.PeConventions),
  'pe-rope': () => import('../widgets/rope.js').then((m) => m.PeRope),
  'pe-alibi': () => import('../widgets/alibi.js').then((m) => m.PeAlibi),
  'pe-precision': () => import('../widgets/precision.js').then((m) => m.PePrecision),
  'pe-relative': () => import('../widgets/relative.js').then((m) => m.PeRelative),
  'pe-binary': () => import('../widgets/binary.js').then((m) => m.PeBinary),
  'pe-learned': () => import('../widgets/learned.js').then((m) => m.PeLearned),
  'pe-lab': () => import('../widgets/lab.js').then((m) => m.PeLab),
  'pe-patch-grid': () => import('../widgets/patch-grid.js').then((m) => m.PePatchGrid),
  'pe-timestep': () => import('../widgets/timestep.js').then((m) => m.PeTimestep),
  'pe-nerf': () => import('../widgets/nerf.js').then((m) => m.PeNerf),
  'pe-model': () => import('../widgets/model.js').then((m) => m.PeModel),
};

const MODULES = {
  checklist: () => import('./checklist.js'),
  numbers: () => import('./numbers.js'),
  combine: () => import('./combine.js'),
  code: () => import('./code-blocks.js'),
  'model-gallery': () => import('./model-gallery.js'),
};

export const WIDGET_TAGS = Object.keys(WIDGETS);

const defining = new Map();
/** Imports and defines one widget tag (once). */
export function defineWidget(tag) {
  if (!defining.has(tag)) {
    defining.set(tag, WIDGETS[tag]().then((cls) => {
      if (!customElements.get(tag)) customElements.define(tag, cls);
    }));
  }
  return defining.get(tag);
}

function load(node) {
  const tag = node.localName;
  if (tag in WIDGETS) return defineWidget(tag);
  const name = node.dataset.module;
  // data-state marks a mounted module as widgets mark themselves drawn (tests and scripts/measure-reserves.mjs wait for it).
  return MODULES[name]?.().then((m) => m.mount(node)).then(() => { node.dataset.state = 'ready'; });
}

/** Watches every widget and module on the page; loads each as it comes near. */
export function loadWhenNear(root = document) {
  const nodes = [...root.querySelectorAll(`${WIDGET_TAGS.join(',')},[data-module]`)];
  const near = new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (!e.isIntersecting) continue;
      near.unobserve(e.target);
      load(e.target).catch((err) => console.error(err));
    }
  }, { rootMargin: '100% 0px' });
  for (const n of nodes) near.observe(n);
}
