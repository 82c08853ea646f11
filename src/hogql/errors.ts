// What is wrong with a HogQL text and where: every error of the front end carries the offset it
// was found at, and the caller turns it into a line and column of the text the person wrote.

export class HogQLError extends Error {
  /** 0-based offset into the query text. */
  readonly start: number;

  constructor(message: string, start: number) {
    super(message);
    this.start = start;
  }
}

/** The 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let column = 1;
  for (let i = 0; i < Math.min(offset, text.length); i++) {
    if (text[i] === '\n') {
      line++;
      column = 1;
    } else column++;
  }
  return { line, column };
}

/** The error's message with its place in `text`: "… (line 1, column 8)". */
export function describeError(error: HogQLError, text: string): string {
  const { line, column } = lineColumn(text, error.start);
  return `${error.message} (line ${line}, column ${column})`;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const saved = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = saved;
    }
  }
  return row[b.length];
}

/** " Did you mean x?" when a known name is close to the unknown one, else the names there are. */
export function suggestion(unknown: string, known: readonly string[]): string {
  const lower = unknown.toLowerCase();
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = distance(lower, name.toLowerCase());
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  if (best !== null && bestDistance <= Math.max(2, Math.floor(unknown.length / 3))) return ` Did you mean ${best}?`;
  return known.length > 0 && known.length <= 12 ? ` Known: ${known.join(', ')}.` : '';
}
