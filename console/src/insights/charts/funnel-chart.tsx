// A funnel drawn step by step: each step's bar is its converted persons, followed (not covered) by
// those who dropped off since the step before, both measured against the persons who entered; the
// figures beside it are text, and each number is a button that lists its persons.
import { duration, funnelGroups, percent, type FunnelGroup, type FunnelStepView } from './funnel-model.ts';
import type { PointHandler } from './points.ts';

function StepBar({ step, entered }: { step: FunnelStepView; entered: number }) {
  const scale = (count: number) => (entered > 0 ? (count / entered) * 1000 : 0);
  const converted = scale(step.converted);
  return (
    <svg
      class="funnel-bar"
      viewBox="0 0 1000 20"
      preserveAspectRatio="none"
      role="img"
      aria-label={`${step.converted} of ${entered} converted${step.dropped > 0 ? `, ${step.dropped} dropped off` : ''}`}
    >
      <rect class="funnel-track" x="0" y="0" width="1000" height="20" />
      <rect class="funnel-converted" x="0" y="0" width={converted} height="20" />
      {step.dropped > 0 ? (
        <rect class="funnel-dropped" x={converted} y="0" width={scale(step.dropped)} height="20" />
      ) : null}
    </svg>
  );
}

interface StepProps {
  step: FunnelStepView;
  index: number;
  entered: number;
  suffix: string;
  onPoint: PointHandler;
}

function Step({ step, index, entered, suffix, onPoint }: StepProps) {
  const converted = `Converted${suffix}, ${step.label}`;
  const dropped = `Dropped off${suffix}, ${step.label}`;
  return (
    <li class="funnel-step">
      <div class="funnel-step-head">
        <span class="funnel-step-name">{step.label}</span>
        <span class="funnel-rates">
          {index === 0 ? (
            'everyone who entered'
          ) : (
            <>
              <strong>{percent(step.fromFirst)}</strong> of step 1
              {index > 1 ? (
                <>
                  {' · '}
                  <strong>{percent(step.fromPrevious)}</strong> of step {index}
                </>
              ) : null}
              {step.medianSeconds !== null ? ` · median ${duration(step.medianSeconds)} from step ${index}` : ''}
            </>
          )}
        </span>
      </div>
      <StepBar step={step} entered={entered} />
      <div class="funnel-counts">
        {step.convertedUrl ? (
          <button
            type="button"
            class="funnel-count-converted"
            aria-label={`Persons of ${converted}: ${step.converted}`}
            onClick={() => onPoint({ title: converted, url: step.convertedUrl ?? '', persons: step.converted })}
          >
            {step.converted} {index === 0 ? 'entered' : 'converted'}
          </button>
        ) : (
          <span>
            {step.converted} {index === 0 ? 'entered' : 'converted'}
          </span>
        )}
        {index > 0 && step.droppedUrl ? (
          <button
            type="button"
            class="funnel-count-dropped"
            aria-label={`Persons of ${dropped}: ${step.dropped}`}
            onClick={() => onPoint({ title: dropped, url: step.droppedUrl ?? '', persons: step.dropped })}
          >
            {step.dropped} dropped off
          </button>
        ) : null}
      </div>
    </li>
  );
}

function Funnel({ group, onPoint }: { group: FunnelGroup; onPoint: PointHandler }) {
  const suffix = group.breakdown === null ? '' : ` · ${group.breakdown}`;
  return (
    <section class="funnel" aria-label={group.breakdown === null ? 'Funnel' : `Funnel of ${group.breakdown}`}>
      {group.breakdown === null ? null : <h3>{group.breakdown}</h3>}
      <ol class="funnel-steps">
        {group.steps.map((step, index) => (
          <Step key={index} step={step} index={index} entered={group.entered} suffix={suffix} onPoint={onPoint} />
        ))}
      </ol>
    </section>
  );
}

export function FunnelChart({ result, onPoint }: { result: unknown; onPoint: PointHandler }) {
  const groups = funnelGroups(result);
  if (groups.length === 0 || groups.every((group) => group.steps.length === 0)) return <p class="muted">No steps.</p>;
  return (
    <figure class="chart funnel-chart">
      {groups.map((group, index) => (
        <Funnel key={index} group={group} onPoint={onPoint} />
      ))}
      <figcaption>
        <ul class="legend">
          <li>
            <span class="swatch funnel-converted-swatch" aria-hidden="true" /> Converted
          </li>
          <li>
            <span class="swatch funnel-dropped-swatch" aria-hidden="true" /> Dropped off since the step before
          </li>
        </ul>
      </figcaption>
    </figure>
  );
}
