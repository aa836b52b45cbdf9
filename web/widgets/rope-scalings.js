// The RoPE types <pe-rope> offers and their labels, derived from the table of
// types (web/lib/variants/rope-types.js, which posenc/variants exports as
// ROPE_TYPES): every type whose required parameters the widget's attributes
// supply, named by the table's MEANINGS. No DOM here, so that
// scripts/rope-types-doc.mjs (docs/widgets.md's list) and the tests read the
// same list the widget shows.
import { TYPES, MEANINGS } from '../lib/variants/rope-types.js';

/** Where each scaling parameter the widget can set comes from: its attributes (the trained length twice). */
export const FROM_ATTRIBUTES = {
  factor: (v) => v.factor, originalMaxPosition: (v) => v['original-max'], maxPosition: (v) => v['original-max'],
};

/** The types the widget offers: every one whose required parameters its attributes supply (not longrope's lists). */
export const SCALINGS = Object.keys(TYPES).filter((t) =>
  Object.entries(TYPES[t].params).every(([k, p]) => p.default !== null || k in FROM_ATTRIBUTES));

/** A type's short label in a language (English when the table lacks that language). */
export const scalingName = (type, lang) => MEANINGS.types[type].name[lang] ?? MEANINGS.types[type].name.en;
