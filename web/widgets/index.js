// Registers every <pe-*> element. This file is the entry of posenc-widgets.js,
// the one script a blog needs: <script type="module" src="posenc-widgets.js">.
import { PeHeatmap } from './heatmap.js';
import { PeCurves } from './curves.js';
import { PeCircles } from './circles.js';
import { PeDotHeatmap } from './dot-heatmap.js';
import { PeToyAttention } from './toy-attention.js';
import { PeLinear } from './linear.js';
import { PeNorms } from './norms.js';
import { PeAttention } from './attention.js';
import { PeConventions } from './conventions.js';
import { PeRope } from './rope.js';
import { PeAlibi } from './alibi.js';
import { PePrecision } from './precision.js';
import { PeRelative } from './relative.js';
import { PeBinary } from './binary.js';
import { PeLearned } from './learned.js';
import { PeLab } from './lab.js';
import { PePatchGrid } from './patch-grid.js';
import { PeTimestep } from './timestep.js';
import { PeNerf } from './nerf.js';
import { PeModel } from './model.js';

export const WIDGETS = {
  'pe-heatmap': PeHeatmap,
  'pe-curves': PeCurves,
  'pe-circles': PeCircles,
  'pe-dot-heatmap': PeDotHeatmap,
  'pe-toy-attention': PeToyAttention,
  'pe-linear': PeLinear,
  'pe-norms': PeNorms,
  'pe-attention': PeAttention,
  'pe-conventions': PeConventions,
  'pe-rope': PeRope,
  'pe-alibi': PeAlibi,
  'pe-precision': PePrecision,
  'pe-relative': PeRelative,
  'pe-binary': PeBinary,
  'pe-learned': PeLearned,
  'pe-lab': PeLab,
  'pe-patch-grid': PePatchGrid,
  'pe-timestep': PeTimestep,
  'pe-nerf': PeNerf,
  'pe-model': PeModel,
};

// A page may load the bundle twice (e.g. tutorial + blog snippet): define once.
// Without a DOM (Node, an SSR or static-site build) importing defines nothing.
for (const [name, cls] of Object.entries(WIDGETS)) {
  if (globalThis.customElements && !customElements.get(name)) customElements.define(name, cls);
}
