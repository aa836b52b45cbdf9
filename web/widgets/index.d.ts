// Types of `posenc/widgets`. Importing it registers every <pe-*> custom element
// (see docs/widgets.md for their attributes); the module also exports the map
// from tag name to element class.

/** The base of every <pe-*> element. */
export declare class PeWidget extends HTMLElement {
  /** How many times the element has drawn successfully. */
  readonly renders: number;
}

/** Every element this module registers, by tag name. */
export declare const WIDGETS: {
  readonly 'pe-heatmap': typeof PeWidget;
  readonly 'pe-curves': typeof PeWidget;
  readonly 'pe-circles': typeof PeWidget;
  readonly 'pe-dot-heatmap': typeof PeWidget;
  readonly 'pe-toy-attention': typeof PeWidget;
  readonly 'pe-linear': typeof PeWidget;
  readonly 'pe-norms': typeof PeWidget;
  readonly 'pe-attention': typeof PeWidget;
  readonly 'pe-conventions': typeof PeWidget;
  readonly 'pe-rope': typeof PeWidget;
  readonly 'pe-alibi': typeof PeWidget;
  readonly 'pe-precision': typeof PeWidget;
  readonly 'pe-relative': typeof PeWidget;
  readonly 'pe-binary': typeof PeWidget;
  readonly 'pe-learned': typeof PeWidget;
  readonly 'pe-lab': typeof PeWidget;
  readonly 'pe-patch-grid': typeof PeWidget;
  readonly 'pe-timestep': typeof PeWidget;
  readonly 'pe-nerf': typeof PeWidget;
  readonly 'pe-model': typeof PeWidget;
  readonly [tag: `pe-${string}`]: typeof PeWidget;
};

declare global {
  interface HTMLElementTagNameMap {
    'pe-heatmap': PeWidget;
    'pe-curves': PeWidget;
    'pe-circles': PeWidget;
    'pe-dot-heatmap': PeWidget;
    'pe-toy-attention': PeWidget;
    'pe-linear': PeWidget;
    'pe-norms': PeWidget;
    'pe-attention': PeWidget;
    'pe-conventions': PeWidget;
    'pe-rope': PeWidget;
    'pe-alibi': PeWidget;
    'pe-precision': PeWidget;
    'pe-relative': PeWidget;
    'pe-binary': PeWidget;
    'pe-learned': PeWidget;
    'pe-lab': PeWidget;
    'pe-patch-grid': PeWidget;
    'pe-timestep': PeWidget;
    'pe-nerf': PeWidget;
    'pe-model': PeWidget;
  }
}
