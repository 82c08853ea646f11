// The paths flow: nodes per step and ribbons weighted by persons, each name shortened beside its
// node with the whole of it on hover; a ribbon clicked (or its row in the table of links below, for
// the keyboard) lists the persons who took it.
import type { ComponentChildren } from 'preact';
import type { PointHandler } from './points.ts';
import { flowLayout, NODE_WIDTH, type FlowLink } from './paths-layout.ts';

const linkTitle = (link: FlowLink) =>
  `${link.source.name} → ${link.target.name} (step ${link.source.step} → ${link.target.step})`;

interface Props {
  result: unknown;
  onPoint: PointHandler;
  /** The chosen link's persons. */
  children?: ComponentChildren;
}

export function PathsFlow({ result, onPoint, children }: Props) {
  const layout = flowLayout(result);
  if (layout.links.length === 0) return <p class="muted">No paths in this range.</p>;
  const choose = (link: FlowLink) => {
    if (link.url) onPoint({ title: linkTitle(link), url: link.url, persons: link.persons });
  };
  const links = [...layout.links].sort((a, b) => b.persons - a.persons);
  return (
    <>
      <figure class="chart paths">
        <div class="table-scroll">
          <svg
            class="paths-flow"
            width={layout.width}
            height={layout.height}
            viewBox={`0 0 ${layout.width} ${layout.height}`}
            role="img"
            aria-label="Paths flow; the table below lists every link"
          >
            {layout.links.map((link, index) => (
              <path
                key={`link-${index}`}
                class="paths-link"
                d={link.d}
                stroke-width={link.width}
                onClick={() => choose(link)}
              >
                <title>{`${linkTitle(link)}: ${link.persons} persons`}</title>
              </path>
            ))}
            {layout.nodes.map((node) => (
              <g key={node.key} class="paths-node">
                <rect x={node.x} y={node.y} width={NODE_WIDTH} height={node.height} />
                <text x={node.x + NODE_WIDTH + 6} y={node.y + Math.min(node.height / 2, 12)} dominant-baseline="middle">
                  {node.label}
                  <tspan class="paths-persons"> {node.persons}</tspan>
                  <title>{node.name}</title>
                </text>
              </g>
            ))}
          </svg>
        </div>
      </figure>
      {children}
      <table class="points">
        <caption>Every link; choose one to list its persons</caption>
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">From</th>
            <th scope="col">To</th>
            <th scope="col">Persons</th>
          </tr>
        </thead>
        <tbody>
          {links.map((link, index) => (
            <tr key={index}>
              <td>
                {link.source.step} → {link.target.step}
              </td>
              <td title={link.source.name}>{link.source.label}</td>
              <td title={link.target.name}>{link.target.label}</td>
              <td>
                {link.url ? (
                  <button
                    type="button"
                    aria-label={`Persons of ${linkTitle(link)}: ${link.persons}`}
                    onClick={() => choose(link)}
                  >
                    {link.persons}
                  </button>
                ) : (
                  link.persons
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
