// The charts' memory: points over cluster time in flat typed arrays, bounded. When the ring
// is full it halves itself (pairs of neighbouring points become one) and doubles the spacing
// it keeps from then on, so a run of any length fits the same memory and the charts still
// span all of it. A pair keeps the later point's value, or the larger one for series where a
// short spike is the story (produce p99, out-of-sync counts), so halving never hides a peak.
//
// Time can go back (scrubbing replays the run to an earlier point): resetTo(t) drops what
// lies after t, and the points that follow are recorded as usual.
//
// Nothing here touches the DOM; charts.ts hands the arrays to uPlot as subarray views, with
// no copy and no per-point object.

/** How a pair of points becomes one when the ring halves itself. */
export type Reduce = "last" | "max";

export class History {
  /** Cluster time of each point, ms, ascending. */
  readonly t: Float64Array;
  /** One array per series, aligned with t. NaN means "no value yet". */
  readonly cols: Float64Array[];
  private n = 0;
  /** The least cluster time between stored points; doubles at every halving. */
  private spacing: number;

  constructor(
    readonly capacity: number,
    readonly reduce: readonly Reduce[],
    /** The spacing a fresh history starts with, ms of cluster time. */
    readonly baseSpacing = 0,
  ) {
    if (capacity < 4 || capacity % 2 !== 0) throw new Error(`history capacity ${capacity}: must be even and at least 4`);
    this.t = new Float64Array(capacity);
    this.cols = reduce.map(() => new Float64Array(capacity));
    this.spacing = baseSpacing;
  }

  get length(): number {
    return this.n;
  }

  /** The least spacing between points now kept (ms). */
  get step(): number {
    return this.spacing;
  }

  /** The time of the latest point, or -Infinity when empty. */
  get lastTime(): number {
    return this.n > 0 ? this.t[this.n - 1] : -Infinity;
  }

  /**
   * Records a point. A point closer than the current spacing to the previous one replaces it
   * (reduced as in a halving), so the latest state is always shown. A point earlier than the
   * latest is a caller's mistake (use resetTo first) and is refused. Returns whether it was
   * stored as a new point.
   */
  push(time: number, values: ArrayLike<number>): boolean {
    if (values.length !== this.cols.length) throw new Error(`history: ${values.length} values for ${this.cols.length} series`);
    if (this.n > 0 && time < this.t[this.n - 1]) return false;
    if (this.n > 1 && time - this.t[this.n - 2] < this.spacing) {
      // Merge into the last point, which stands for the span since the one before it.
      const i = this.n - 1;
      this.t[i] = time;
      for (let s = 0; s < this.cols.length; s++) {
        const c = this.cols[s];
        c[i] = this.reduce[s] === "max" ? maxOf(c[i], values[s]) : values[s];
      }
      return false;
    }
    if (this.n === this.capacity) this.halve();
    const i = this.n++;
    this.t[i] = time;
    for (let s = 0; s < this.cols.length; s++) this.cols[s][i] = values[s];
    return true;
  }

  /** Drops every point after time t (scrubbing back); the spacing stays as it is. */
  resetTo(time: number): void {
    // t is sorted: binary search for the first point after `time`.
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.t[mid] <= time) lo = mid + 1;
      else hi = mid;
    }
    this.n = lo;
  }

  /** Forgets everything (a new cluster). */
  clear(): void {
    this.n = 0;
    this.spacing = this.baseSpacing;
  }

  /** The index of the first point whose series s has a value (not NaN), or length. */
  firstValue(s: number): number {
    const c = this.cols[s];
    for (let i = 0; i < this.n; i++) if (!Number.isNaN(c[i])) return i;
    return this.n;
  }

  /** Views of the stored points from index `from`: [t, series...], ready for uPlot. */
  view(from = 0, series?: readonly number[]): Float64Array[] {
    const out = [this.t.subarray(from, this.n)];
    for (const s of series ?? this.cols.map((_, i) => i)) out.push(this.cols[s].subarray(from, this.n));
    return out;
  }

  /** Pairs of points become one: the later time, each series reduced by its rule. */
  private halve(): void {
    const half = this.n >>> 1;
    for (let j = 0; j < half; j++) {
      const a = 2 * j;
      const b = a + 1;
      this.t[j] = this.t[b];
      for (let s = 0; s < this.cols.length; s++) {
        const c = this.cols[s];
        c[j] = this.reduce[s] === "max" ? maxOf(c[a], c[b]) : c[b];
      }
    }
    this.n = half;
    this.spacing = Math.max(this.spacing * 2, half > 1 ? (this.t[half - 1] - this.t[0]) / (half - 1) : 0);
  }
}

/** The larger of two values, where NaN (no value) loses to any number. */
function maxOf(a: number, b: number): number {
  if (Number.isNaN(a)) return b;
  if (Number.isNaN(b)) return a;
  return a > b ? a : b;
}

/** The median of the finite values in a[from..to), or NaN when there are none. */
export function median(a: ArrayLike<number>, from = 0, to = a.length): number {
  const v: number[] = [];
  for (let i = from; i < to; i++) if (Number.isFinite(a[i])) v.push(a[i]);
  if (v.length === 0) return NaN;
  v.sort((x, y) => x - y);
  const m = v.length >>> 1;
  return v.length % 2 === 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}
