// "Did you mean …?" for mistyped commands and options: the closest known word by edit distance
// (optimal string alignment: a swap of two neighbours, `--prot` for `--port`, counts as one edit).

/** Edits (insert, delete, replace, swap of neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known word the typed one most likely meant, or null: one within a third of its length in
 * edits (at least one), or one it starts or ends with at a word boundary (`ttl-seconds` → `ttl`,
 * `expires` → `expires-at`). Case is ignored.
 */
export function closestWord(typed: string, known: readonly string[]): string | null {
  const word = typed.toLowerCase();
  if (word === "") return null;
  let best: { word: string; distance: number } | null = null;
  for (const k of known) {
    const distance = editDistance(word, k);
    if (distance === 0) return k;
    if (!best || distance < best.distance) best = { word: k, distance };
  }
  if (best && best.distance <= Math.max(1, Math.floor(word.length / 3))) return best.word;
  const byBoundary = known.filter(
    (k) => (word.length >= 2 && k.startsWith(word) && /[- ]/.test(k[word.length] ?? "")) || word.startsWith(`${k}-`) || word.startsWith(`${k} `),
  );
  return byBoundary.length === 1 ? byBoundary[0]! : null;
}
