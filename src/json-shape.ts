// Facts about JSON input for error messages and limits: how deeply text nests, read without
// parsing it (so over-deep input is refused before anything recursive meets it), and the
// platform's (Python's) name for a value's type, and parsed values as text without calling a method
// they carry (JSON can hold {"toString": ""}, on which String() and a template literal throw).

export const MAX_JSON_DEPTH = 100;

/** The deepest nesting of arrays and objects in JSON text, counted outside strings. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return deepest;
}

/** A JSON value's type as the platform's messages name it ("dict", "list", "str", …). */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'boolean') return 'bool';
  return 'dict';
}

/** What String() makes of a parsed JSON value ("null", "1,2", "[object Object]"), never calling its own methods. */
export function jsonValueText(value: unknown): string {
  if (Array.isArray(value))
    return value.map((item) => (item === null || item === undefined ? '' : jsonValueText(item))).join(',');
  if (typeof value === 'object' && value !== null) return '[object Object]';
  return String(value);
}

/** A value as a message or a link's query shows it: an object or a list as its JSON, anything else as text. */
export function shownValue(value: unknown): string {
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
