// A chart model drawn by uPlot. A click on the plot picks the nearest point of the nearest series
// (on a stacked chart, the segment under the cursor); the table beside the chart offers every
// point to the keyboard too. A stacked chart (lifecycle) piles each period's positive values up
// and its negative ones down, so no bar stands in front of another.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { stackSegments } from './charts/stack.ts';
import type { ChartModel } from './charts/trend-model.ts';

const PALETTE = ['#1d4ed8', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0e7490', '#a16207', '#be185d'];

export const colorOf = (index: number) => PALETTE[index % PALETTE.length];

interface Props {
  model: ChartModel;
  title: string;
  onPoint: (series: number, index: number) => void;
}

function nearestSeries(plot: uPlot, index: number, top: number): number {
  let best = -1;
  let bestDistance = Infinity;
  for (let series = 1; series < plot.series.length; series += 1) {
    const value = plot.data[series][index];
    if (value === null || value === undefined) continue;
    const distance = Math.abs(plot.valToPos(value, 'y') - top);
    if (distance < bestDistance) {
      best = series - 1;
      bestDistance = distance;
    }
  }
  return best;
}

export function InsightChart({ model, title, onPoint }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const pick = useRef(onPoint);
  pick.current = onPoint;

  useEffect(() => {
    const element = container.current;
    if (!element || model.labels.length === 0) return;
    const xs = model.labels.map((_, index) => index);
    const stacked = model.style === 'stacked';
    const segments = stacked ? stackSegments(model.series.map((series) => series.values)) : null;
    // Stacked bars are each drawn from zero to their segment's outer edge, the outermost first.
    const order = model.series.map((_, index) => index);
    if (stacked) order.reverse();
    const bars =
      model.style === 'bars'
        ? uPlot.paths.bars?.({ size: [0.8 / Math.max(1, model.series.length), 60] })
        : stacked
          ? uPlot.paths.bars?.({ size: [0.6, 60] })
          : undefined;
    const options: uPlot.Options = {
      width: Math.max(320, element.clientWidth),
      height: 280,
      // The legend is drawn by the page as text; uPlot's is off.
      legend: { show: false },
      scales: { x: { time: false, range: [-0.5, Math.max(0.5, xs.length - 0.5)] } },
      axes: [
        // Whole steps only: each x is the index of a label.
        {
          incrs: [1, 2, 5, 10, 20, 50, 100],
          values: (_plot, splits) =>
            splits.map((split) => (Number.isInteger(split) ? (model.labels[split] ?? '') : '')),
          space: 60,
        },
        {},
      ],
      series: [
        {},
        ...order.map((index) => ({
          label: model.series[index].label,
          stroke: colorOf(index),
          fill: model.style === 'line' ? undefined : colorOf(index),
          width: stacked ? 0 : 2,
          paths: bars,
          points: { show: model.style === 'line' },
        })),
      ],
      cursor: { drag: { x: false, y: false } },
    };
    const data: uPlot.AlignedData = [
      xs,
      ...order.map((index) =>
        segments ? segments[index].map((segment) => segment.outer) : model.series[index].values,
      ),
    ];
    const plot = new uPlot(options, data, element);
    const click = () => {
      const index = plot.cursor.idx;
      const top = plot.cursor.top;
      if (index === null || index === undefined || top === undefined) return;
      if (segments) {
        const value = plot.posToVal(top, 'y');
        const series = segments.findIndex((line) => line[index].low <= value && value <= line[index].high);
        if (series >= 0) pick.current(series, index);
        return;
      }
      const series = nearestSeries(plot, index, top);
      if (series >= 0) pick.current(order[series], index);
    };
    plot.over.addEventListener('click', click);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(320, element.clientWidth), height: 280 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [model]);

  return (
    <figure class="chart">
      <div ref={container} role="img" aria-label={`${title} chart; the table below lists every point`} />
      <figcaption>
        <ul class="legend">
          {model.series.map((series, index) => (
            <li key={index}>
              <span class={`swatch swatch-${index % PALETTE.length}`} aria-hidden="true" /> {series.label}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
