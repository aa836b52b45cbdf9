// The lab's tasks and the words of their vocabularies, in the token order of
// c/lab/tasks.c. Words are for display and for tokenize(); the model sees ids.

import { PE_LAB_WHO, PE_LAB_SHIFT, PE_LAB_COPY, PE_LAB_REVERSE, PE_LAB_RECENCY } from '../../../dist/constants.js';
import { Checker } from '../validate.js';

export const TASK_IDS = { 'who-did-what': PE_LAB_WHO, shift: PE_LAB_SHIFT, copy: PE_LAB_COPY, reverse: PE_LAB_REVERSE,
  recency: PE_LAB_RECENCY };
export const TASKS = Object.freeze(Object.keys(TASK_IDS)); // (frozen: the list task is checked against)

// What guessing scores. who-did-what: one of the two names present (a model
// that can tell names from other words but not their order). recency: one of
// the 8 names; shift, copy, reverse: one of the 10 symbols. A model can score
// below chance when it follows a rule that is wrong in a systematic way (the
// who-did-what probe: the "farther name" rule always picks the other name).
const CHANCE = { 'who-did-what': 1 / 2, shift: 1 / 10, copy: 1 / 10, reverse: 1 / 10, recency: 1 / 8 };

/**
 * The helpers' task (and lang, bos), checked: an unknown task was answered with copy's words, and chance('constructor')
 * with Object, a lang of 'fr' with English and a bos of 'no' with the start token, each without a word.
 */
function checked(fn, task, lang, bos) {
  const check = new Checker(`lab.${fn}`), name = check.oneOf('task', task, TASKS);
  check.oneOf('lang', lang ?? 'en', ['en', 'zh']); // null is absent, as in every option of the API
  check.boolean('bos', bos ?? false);
  return name;
}

/** The accuracy of guessing on a task. */
export const chance = (task) => CHANCE[checked('chance', task)];

/** The word shown for the start token (bos), the last id of a task with one. */
export const BOS_WORD = '<s>';

const SYMBOLS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];

// who-did-what: 8 names, 4 verbs, 4 fillers, the query. Each language has its own words.
const WHO = {
  en: ['Ann', 'Bob', 'Cy', 'Dee', 'Eve', 'Fay', 'Gus', 'Hal',
    'hits', 'likes', 'helps', 'sees', 'today', 'also', 'again', 'really', '?'],
  zh: ['我', '你', '他', '她', '猫', '狗', '牛', '马', '打', '爱', '帮', '看', '今天', '也', '又', '真', '？'],
};

const usesNames = (task) => task === 'who-did-what' || task === 'recency';

/** The words of a task's tokens, id order; `lang` picks who-did-what's and recency's words; bos adds the start token. */
export function vocabulary(task, lang = 'en', bos = false) {
  checked('vocabulary', task, lang, bos);
  const words = usesNames(task) ? WHO[lang === 'zh' ? 'zh' : 'en'].slice()
    : task === 'shift' ? SYMBOLS.slice() : [...SYMBOLS, '|', '_'];
  return bos ? [...words, BOS_WORD] : words;
}

/** The words that name the classes (the first `classes` tokens of every task). */
export function classNames(task, lang = 'en') {
  checked('classNames', task, lang);
  return vocabulary(task, lang).slice(0, usesNames(task) ? 8 : 10);
}

/**
 * Token ids of a text: the longest known word at each point, spaces ignored,
 * case-insensitive, words of either language. Returns null for the first
 * character that starts no word (with its index), so a caller can say where.
 */
export function splitWords(task, text) {
  const words = usesNames(task)
    ? [...WHO.en.map((w, i) => [w.toLowerCase(), i]), ...WHO.zh.map((w, i) => [w, i]), ['?', 16], ['？', 16]]
    : vocabulary(task).map((w, i) => [w, i]);
  words.sort((a, b) => b[0].length - a[0].length);
  const ids = [];
  const lower = text.toLowerCase();
  for (let at = 0; at < lower.length;) {
    if (/\s/.test(lower[at])) { at++; continue; }
    const hit = words.find(([w]) => lower.startsWith(w, at));
    if (!hit) return { ids: null, at };
    ids.push(hit[1]);
    at += hit[0].length;
  }
  return { ids, at: -1 };
}
