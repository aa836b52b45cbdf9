// The lab's tasks and the words of their vocabularies, in the token order of
// c/lab/tasks.c. Words are for display and for tokenize(); the model sees ids.

import { PE_LAB_WHO, PE_LAB_SHIFT, PE_LAB_COPY, PE_LAB_REVERSE } from '../../../dist/constants.js';

export const TASK_IDS = { 'who-did-what': PE_LAB_WHO, shift: PE_LAB_SHIFT, copy: PE_LAB_COPY, reverse: PE_LAB_REVERSE };
export const TASKS = Object.keys(TASK_IDS);

const SYMBOLS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];

// who-did-what: 8 names, 4 verbs, 4 fillers, the query. Each language has its own words.
const WHO = {
  en: ['Ann', 'Bob', 'Cy', 'Dee', 'Eve', 'Fay', 'Gus', 'Hal',
    'hits', 'likes', 'helps', 'sees', 'today', 'also', 'again', 'really', '?'],
  zh: ['我', '你', '他', '她', '猫', '狗', '牛', '马', '打', '爱', '帮', '看', '今天', '也', '又', '真', '？'],
};

/** The words of a task's tokens, id order; `lang` picks who-did-what's words. */
export function vocabulary(task, lang = 'en') {
  if (task === 'who-did-what') return WHO[lang === 'zh' ? 'zh' : 'en'].slice();
  if (task === 'shift') return SYMBOLS.slice();
  return [...SYMBOLS, '|', '_'];
}

/** The words that name the classes (the first `classes` tokens of every task). */
export function classNames(task, lang = 'en') {
  return vocabulary(task, lang).slice(0, task === 'who-did-what' ? 8 : 10);
}

/**
 * Token ids of a text: the longest known word at each point, spaces ignored,
 * case-insensitive, words of either language. Returns null for the first
 * character that starts no word (with its index), so a caller can say where.
 */
export function splitWords(task, text) {
  const words = task === 'who-did-what'
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
