// LIKE/ILIKE patterns built from user text: its own `%`, `_` and `\` match themselves.

export const escapeLike = (value: string) => value.replace(/[\\%_]/g, (char) => `\\${char}`);

/** The pattern of "contains `text`". */
export const containsPattern = (text: string) => `%${escapeLike(text)}%`;
