// How deeply JSON text nests, read without parsing it, so over-deep input is refused before
// anything recursive (a parser, a validator, a serializer, the database) meets it.

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

