/**
 * "Did you mean …?": the candidate closest to `word` by optimal-string-alignment distance (a swap of two neighbours
 * counts once), when it is close enough to be a typo — at most 1 edit for words of up to 4 characters, 2 up to 8, 3
 * beyond. Case is ignored; ties go to the earlier candidate. Undefined when nothing is that close, or `word` is one.
 */
export function suggestClosest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  const budget = lower.length <= 4 ? 1 : lower.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = budget + 1;
  for (const candidate of candidates) {
    if (candidate === word) return undefined;
    const distance = editDistance(lower, candidate.toLowerCase(), bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance, giving up (returning `limit`) once it cannot be below `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (before[j - 2] ?? 0) + 1);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin >= limit) return limit;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length] ?? limit, limit);
}
