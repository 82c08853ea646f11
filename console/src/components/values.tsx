// Captured values as text. Everything a visitor of a tracked site can send (property keys and
// values, distinct ids, event names) reaches the page only through these, as text nodes.

/** A JSON value as the text a person reads: strings as they are, anything else as JSON. */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export function ValueText({ value }: { value: unknown }) {
  const text = valueText(value);
  return typeof value === 'string' ? <span class="value">{text}</span> : <code class="value">{text}</code>;
}

/** An ISO time in UTC, readable and the same in every time zone. */
export function timeText(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  return <time dateTime={iso}>{timeText(iso)}</time>;
}

export function plural(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`;
}
