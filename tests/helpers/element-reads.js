// Arrays that count and refuse their element reads: for tests that a call is
// refused before it reads any element of its data (the read-before-refusal
// family, thirty-second to thirty-fourth passes).

/**
 * { list(values), reads }: list() gives an array of those values whose every
 * element read from index `from` on is counted in `reads` and throws (from 1:
 * element 0 stays free, as reading it is how a nested array's rank is found).
 */
export function elementReads(from = 0) {
  const guard = {
    reads: 0,
    list: (values) => new Proxy(Array.from(values), {
      get: (target, key) => {
        if (typeof key === 'string' && /^\d+$/.test(key) && +key >= from) {
          guard.reads++;
          throw new Error('an element was read');
        }
        return target[key];
      },
    }),
  };
  return guard;
}

/**
 * { lazy(n), reads }: lazy() gives an array-like of n elements, each 0.5, whose element reads are counted in `reads`
 * (none throws): for tests that a call reads no element before a refusal, and then only as many as it needs.
 */
export function lazyReads() {
  const counter = { reads: 0, lazy: (n) => new Proxy({ length: n }, { get: (t, k) => (k === 'length' ? n : (counter.reads++, 0.5)) }) };
  return counter;
}
