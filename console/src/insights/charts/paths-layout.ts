// The paths answer laid out as a flow: a column per step, a node per page or event there (as tall
// as the persons through it, never shorter than its label), and a ribbon per edge as wide as the
// persons who took it. Node keys carry the step as an `N_` prefix; a reader sees the name alone,
// a long URL shortened to its path (and then its middle), the whole of it on hover.

interface PathEdgeWire {
  source?: string;
  target?: string;
  value?: number;
  people_url?: string;
}

export interface FlowNode {
  key: string;
  /** The whole name, without the step prefix. */
  name: string;
  /** What fits beside the node. */
  label: string;
  step: number;
  persons: number;
  x: number;
  y: number;
  height: number;
}

export interface FlowLink {
  source: FlowNode;
  target: FlowNode;
  persons: number;
  url: string | null;
  /** The ribbon's centre line and its width. */
  d: string;
  width: number;
}

export interface FlowLayout {
  nodes: FlowNode[];
  links: FlowLink[];
  width: number;
  height: number;
}

export const NODE_WIDTH = 12;
const COLUMN_WIDTH = 250;
const LABEL_SPACE = 230;
const MIN_NODE = 20;
const GAP = 12;
const FLOW_HEIGHT = 320;
const MARGIN = 8;
const LABEL_CHARACTERS = 30;

/** The node's step (1, 2, …) and its name without the `N_` prefix. */
export function splitKey(key: string): { step: number; name: string } {
  const match = /^(\d+)_([\s\S]*)$/.exec(key);
  return match ? { step: Number(match[1]), name: match[2] } : { step: 1, name: key };
}

/** A name short enough to read beside a node: a URL without its origin, a long one cut in its middle. */
export function shortLabel(name: string, limit = LABEL_CHARACTERS): string {
  let shown = name;
  if (/^https?:\/\//i.test(name)) {
    try {
      const url = new URL(name);
      shown = `${url.pathname}${url.search}${url.hash}` || '/';
    } catch {
      // Not a URL after all: shown as it is.
    }
  }
  const characters = Array.from(shown);
  if (characters.length <= limit) return shown;
  const head = Math.ceil((limit - 1) / 2);
  const tail = limit - 1 - head;
  return `${characters.slice(0, head).join('')}…${characters.slice(characters.length - tail).join('')}`;
}

export function flowLayout(result: unknown): FlowLayout {
  const edges = (Array.isArray(result) ? (result as PathEdgeWire[]) : []).filter(
    (edge) => typeof edge.source === 'string' && typeof edge.target === 'string',
  );
  const byKey = new Map<string, { key: string; step: number; name: string; into: number; out: number }>();
  const node = (key: string) => {
    let found = byKey.get(key);
    if (!found) {
      found = { key, ...splitKey(key), into: 0, out: 0 };
      byKey.set(key, found);
    }
    return found;
  };
  for (const edge of edges) {
    node(edge.source as string).out += edge.value ?? 0;
    node(edge.target as string).into += edge.value ?? 0;
  }
  const steps = [...new Set([...byKey.values()].map((entry) => entry.step))].sort((a, b) => a - b);
  const columns = steps.map((step) =>
    [...byKey.values()]
      .filter((entry) => entry.step === step)
      .map((entry) => ({ ...entry, persons: Math.max(entry.into, entry.out) }))
      .sort((a, b) => b.persons - a.persons || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  );
  const busiest = Math.max(1, ...columns.map((column) => column.reduce((total, entry) => total + entry.persons, 0)));
  const scale = FLOW_HEIGHT / busiest;
  const nodes = new Map<string, FlowNode>();
  let height = 0;
  columns.forEach((column, index) => {
    let y = MARGIN;
    for (const entry of column) {
      const placed: FlowNode = {
        key: entry.key,
        name: entry.name,
        label: shortLabel(entry.name),
        step: entry.step,
        persons: entry.persons,
        x: MARGIN + index * COLUMN_WIDTH,
        y,
        height: Math.max(MIN_NODE, entry.persons * scale),
      };
      nodes.set(entry.key, placed);
      y += placed.height + GAP;
    }
    height = Math.max(height, y - GAP + MARGIN);
  });
  // Each node's ribbons leave and arrive in the order of the nodes at their other end, so they do not cross there.
  const links = edges.map((edge) => {
    const persons = edge.value ?? 0;
    return {
      source: nodes.get(edge.source as string) as FlowNode,
      target: nodes.get(edge.target as string) as FlowNode,
      persons,
      url: edge.people_url ?? null,
      d: '',
      width: Math.max(1.5, persons * scale),
    };
  });
  const stack = (order: FlowLink[], end: (link: FlowLink) => FlowNode) => {
    const used = new Map<string, number>();
    const offsets = new Map<FlowLink, number>();
    for (const link of order) {
      const offset = used.get(end(link).key) ?? 0;
      offsets.set(link, offset);
      used.set(end(link).key, offset + link.persons * scale);
    }
    return offsets;
  };
  const leave = stack(
    [...links].sort((a, b) => a.source.y - b.source.y || a.target.y - b.target.y),
    (link) => link.source,
  );
  const arrive = stack(
    [...links].sort((a, b) => a.target.y - b.target.y || a.source.y - b.source.y),
    (link) => link.target,
  );
  for (const link of links) {
    const y0 = link.source.y + (leave.get(link) ?? 0) + link.width / 2;
    const y1 = link.target.y + (arrive.get(link) ?? 0) + link.width / 2;
    const x0 = link.source.x + NODE_WIDTH;
    const x1 = link.target.x;
    const middle = (x0 + x1) / 2;
    link.d = `M${x0} ${y0}C${middle} ${y0} ${middle} ${y1} ${x1} ${y1}`;
  }
  return {
    nodes: [...nodes.values()],
    links,
    width: MARGIN * 2 + Math.max(0, columns.length - 1) * COLUMN_WIDTH + NODE_WIDTH + LABEL_SPACE,
    height: Math.max(height, MIN_NODE + MARGIN * 2),
  };
}
