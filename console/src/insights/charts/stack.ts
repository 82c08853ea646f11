// Stacked bars: each period's positive values piled up from zero in series order, its negative
// ones piled down, so every value is a segment of its own and none hides another.

export interface StackSegment {
  low: number;
  high: number;
  /** The edge away from zero, where a bar drawn from zero ends. */
  outer: number;
}

export function stackSegments(series: number[][]): StackSegment[][] {
  const length = Math.max(0, ...series.map((values) => values.length));
  const up = new Array<number>(length).fill(0);
  const down = new Array<number>(length).fill(0);
  return series.map((values) =>
    Array.from({ length }, (_, index) => {
      const value = values[index] ?? 0;
      if (value >= 0) {
        const low = up[index];
        up[index] = low + value;
        return { low, high: up[index], outer: up[index] };
      }
      const high = down[index];
      down[index] = high + value;
      return { low: down[index], high, outer: down[index] };
    }),
  );
}
