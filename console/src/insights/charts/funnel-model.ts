// A funnel answer as its reader needs it: per breakdown value, each step's persons who converted
// and who dropped off since the step before (two numbers that add up to the previous step, so
// neither is drawn over the other), its conversion from the first and from the previous step, and
// the median time from the step before.

interface FunnelStepWire {
  name?: string;
  custom_name?: string | null;
  order?: number;
  count?: number;
  median_conversion_time?: number | null;
  breakdown_value?: unknown;
  converted_people_url?: string | null;
  dropped_people_url?: string | null;
}

export interface FunnelStepView {
  /** "2. signed up" */
  label: string;
  converted: number;
  /** Persons of the step before who did not reach this one (0 at the first step). */
  dropped: number;
  /** Share of the first step's persons, 0…1. */
  fromFirst: number;
  /** Share of the previous step's persons, 0…1 (1 at the first step). */
  fromPrevious: number;
  /** Seconds from the step before, the median over the persons who converted; null at step 1. */
  medianSeconds: number | null;
  convertedUrl: string | null;
  droppedUrl: string | null;
}

export interface FunnelGroup {
  /** The breakdown value of this funnel, or null without a breakdown. */
  breakdown: string | null;
  entered: number;
  steps: FunnelStepView[];
}

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
const share = (part: number, whole: number) => (whole > 0 ? part / whole : 0);

function groupOf(steps: FunnelStepWire[], breakdown: boolean): FunnelGroup {
  const entered = steps[0]?.count ?? 0;
  return {
    breakdown: breakdown && steps[0]?.breakdown_value !== undefined ? text(steps[0].breakdown_value) : null,
    entered,
    steps: steps.map((step, index) => {
      const converted = step.count ?? 0;
      const previous = index === 0 ? converted : (steps[index - 1].count ?? 0);
      return {
        label: `${(step.order ?? index) + 1}. ${step.custom_name || step.name || 'step'}`,
        converted,
        dropped: index === 0 ? 0 : Math.max(0, previous - converted),
        fromFirst: index === 0 ? 1 : share(converted, entered),
        fromPrevious: index === 0 ? 1 : share(converted, previous),
        medianSeconds: index === 0 ? null : (step.median_conversion_time ?? null),
        convertedUrl: step.converted_people_url ?? null,
        droppedUrl: step.dropped_people_url ?? null,
      };
    }),
  };
}

/** The funnels of an answer: one, or one per breakdown value (a list of lists). */
export function funnelGroups(result: unknown): FunnelGroup[] {
  if (!Array.isArray(result) || result.length === 0) return [];
  if (Array.isArray(result[0])) return (result as FunnelStepWire[][]).map((steps) => groupOf(steps, true));
  return [groupOf(result as FunnelStepWire[], false)];
}

/** "50%": whole percents, "<1%" for a share that is not nothing but rounds to it. */
export function percent(fraction: number): string {
  if (fraction > 0 && fraction < 0.005) return '<1%';
  return `${Math.round(fraction * 100)}%`;
}

/** "45s", "3m 20s", "2h 5m", "1d 4h": the two largest units of a duration. */
export function duration(seconds: number): string {
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole}s`;
  const units: Array<[size: number, name: string]> = [
    [86_400, 'd'],
    [3_600, 'h'],
    [60, 'm'],
    [1, 's'],
  ];
  const first = units.findIndex(([size]) => whole >= size);
  const [size, name] = units[first];
  const [nextSize, nextName] = units[first + 1];
  const rest = Math.floor((whole % size) / nextSize);
  return rest > 0 ? `${Math.floor(whole / size)}${name} ${rest}${nextName}` : `${Math.floor(whole / size)}${name}`;
}
