/** Above this many line pairs the merge falls back to keeping both texts' lines rather than aligning them. */
const MAX_CELLS = 4_000_000;

/** For each line of `base`, the index of the line of `other` it is aligned with (longest common subsequence), or -1. */
function align(base: readonly string[], other: readonly string[]): Int32Array {
  const n = base.length;
  const m = other.length;
  const width = m + 1;
  const lengths = new Int32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * width + j] =
        base[i] === other[j] ? (lengths[(i + 1) * width + j + 1] as number) + 1 : Math.max(lengths[(i + 1) * width + j] as number, lengths[i * width + j + 1] as number);
    }
  }
  const match = new Int32Array(n).fill(-1);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (base[i] === other[j]) {
      match[i] = j;
      i++;
      j++;
    } else if ((lengths[(i + 1) * width + j] as number) >= (lengths[i * width + j + 1] as number)) i++;
    else j++;
  }
  return match;
}

/** True when `part`'s lines appear in `whole` in order (a subsequence). */
function contains(whole: readonly string[], part: readonly string[]): boolean {
  let i = 0;
  for (const line of whole) if (i < part.length && line === part[i]) i++;
  return i === part.length;
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

/**
 * Three-way merge of two texts that were both edited from `base`, line by line. Changes to
 * different places are both applied; where both changed the same place, both versions are kept
 * (`first`'s lines, then `second`'s): nothing either side wrote is dropped. Pure.
 */
export function mergeLines(base: string, first: string, second: string): string {
  if (first === base || first === second) return second;
  if (second === base) return first;
  const b = base.split('\n');
  const x = first.split('\n');
  const y = second.split('\n');
  if (b.length * Math.max(x.length, y.length) > MAX_CELLS) {
    const kept = new Set(y);
    return [...y, ...x.filter((line) => !kept.has(line))].join('\n');
  }
  const toX = align(b, x);
  const toY = align(b, y);
  const out: string[] = [];
  let i = 0;
  let xi = 0;
  let yi = 0;
  for (;;) {
    let k = i;
    while (k < b.length && !((toX[k] as number) >= 0 && (toY[k] as number) >= 0)) k++;
    const xEnd = k < b.length ? (toX[k] as number) : x.length;
    const yEnd = k < b.length ? (toY[k] as number) : y.length;
    const baseChunk = b.slice(i, k);
    const xChunk = x.slice(xi, xEnd);
    const yChunk = y.slice(yi, yEnd);
    if (same(xChunk, baseChunk)) out.push(...yChunk);
    else if (same(yChunk, baseChunk) || same(xChunk, yChunk)) out.push(...xChunk);
    // One side may already hold the other's lines (an editor that read the first before writing the second).
    else if (contains(yChunk, xChunk)) out.push(...yChunk);
    else if (contains(xChunk, yChunk)) out.push(...xChunk);
    else out.push(...xChunk, ...yChunk);
    if (k >= b.length) break;
    out.push(b[k] as string);
    i = k + 1;
    xi = xEnd + 1;
    yi = yEnd + 1;
  }
  return out.join('\n');
}
