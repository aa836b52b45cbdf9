// The command line's flags, read strictly: a script's typo must stop it with
// exit 2 and a message, never turn into a different number. Counts and
// positions are decimal integers ("16", "-3"; not "0x10", " 4", "1e3"), reals
// decimal or exponent notation ("0.5", "5e5"), finite unless the flag
// documents an infinity (`inf: '-'` allows "-inf" alone). A flag given twice
// is refused, and every message quotes the value as it was typed.

export class UsageError extends Error {}

/**
 * A flag's text as a message shows it: its first 99 characters, and its length when longer (as the API shows a
 * caller's strings). An argument can be 128 KiB, and a message quoting it whole was a line of that length. A path
 * (`PATH`, up to PATH_MAX) is shown whole, so that its file name is seen.
 */
export const PATH = 4096;
const more = (text, max) => (text.length > max ? `… (${text.length} characters)` : '');
export const shown = (text, max = 99) => text.slice(0, max) + more(text, max);
/** shown() with the part shown in JSON quotes. */
export const quoted = (text, max = 99) => JSON.stringify(text.slice(0, max)) + more(text, max);

const INT = /^-?\d+$/;
/** A real as a flag gives it: decimal or exponent notation (not "0x10", "0b1", " 4" or "Infinity"). */
// (\d+(\.\d*)?, not \d+\.?\d*, whose two quantifiers share every digit: 130 000 digits and an x, the most one argument
// holds, backtracked for 18 s before the message)
export const REAL = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/**
 * Why a real as typed is not the number it reads as, or '': a value whose digits are not all zero but that
 * is below the least double (1e-400, 5e-325) reads as 0, and a message would then say "got 0".
 */
export const readsAsZero = (raw, num) => (num === 0 && /[1-9]/.test(raw.split(/e/i)[0]) ? ' (too small for a double: it would be read as 0)' : '');

/** The number a flag's text stands for, or a UsageError naming the flag and the text. */
export function readNumber(name, raw, f) {
  if (f.inf === '-' && /^-inf(inity)?$/i.test(raw)) return -Infinity;
  const kind = f.type === 'int' ? 'a decimal integer' : `a finite decimal number${f.inf === '-' ? ' or -inf' : ''}`;
  const num = (f.type === 'int' ? INT : REAL).test(raw) ? Number(raw) : NaN;
  // why a decimal integer is refused as not one: one past 2^53 − 1 was "expects a decimal integer, got "9007199254740993""
  const zero = readsAsZero(raw, num) || (f.type === 'int' && num === Math.round(num) && !Number.isSafeInteger(num)
    ? ` (past ±${Number.MAX_SAFE_INTEGER}, the largest integer a double holds exactly)` : '');
  if (!Number.isFinite(num) || (f.type === 'int' && !Number.isSafeInteger(num)) || zero) {
    throw new UsageError(`--${name} expects ${kind}, got ${quoted(raw)}${zero}`);
  }
  return num;
}

/**
 * Reads `tokens` (the words after the command) against `spec` (flag name →
 * { type: 'int' | 'number' | 'string' | 'boolean', inf?, required?, help }).
 * Returns { values, raw }: values by flag name (a null-prototype object, so
 * "__proto__" or "constructor" find nothing inherited) and the text each
 * was given as, for messages.
 */
export function parseFlags(tokens, spec, cmd) {
  const values = Object.create(null);
  const raw = Object.create(null);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token === '-h') {
      values.help = true;
      continue;
    }
    if (!token.startsWith('--')) throw new UsageError(`unexpected argument ${quoted(token)} (flags start with --)`);
    const eq = token.indexOf('=');
    const name = token.slice(2, eq < 0 ? undefined : eq);
    const f = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (!f) throw new UsageError(`unknown flag --${shown(name)} for "posenc ${cmd}" (see posenc ${cmd} --help)`);
    if (name in values) throw new UsageError(`--${name} is given twice; give it once`);
    if (f.type === 'boolean') {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      values[name] = true;
      continue;
    }
    const text = eq >= 0 ? token.slice(eq + 1) : tokens[++i];
    // "--out --quiet" forgot the value: the next flag is not a file name.
    if (text === undefined || (eq < 0 && text.startsWith('--'))) {
      throw new UsageError(`--${name} needs a value${text === undefined ? '' : ` (got the flag ${shown(text)}; write --${name}=${shown(text)} if that is meant)`}`);
    }
    raw[name] = text;
    values[name] = f.type === 'string' ? text : readNumber(name, text, f);
  }
  return { values, raw };
}

/** Refuses a value outside [min, max], quoting it as typed. */
export function checkRange(name, raw, value, min, max) {
  if (!(value >= min && value <= max)) throw new UsageError(`--${name} must be from ${min} to ${max}, got ${raw === undefined ? value : shown(raw)}`);
  return value;
}
