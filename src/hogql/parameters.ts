// One bound parameter per distinct value: the same HogQL expression written twice (in SELECT and in
// GROUP BY, ORDER BY or under DISTINCT) must compile to the same SQL text, or PostgreSQL sees two
// different expressions (`$1` vs `$5`) and refuses the grouping. The SQL text holds no text of the
// query (every value of the query is a parameter), so each `$n` in it is a parameter reference.

export interface SqlWithParameters {
  sql: string;
  parameters: readonly unknown[];
}

export function shareParameters(query: SqlWithParameters): SqlWithParameters {
  const parameters: unknown[] = [];
  const byKey = new Map<string, number>();
  const text = query.sql.replace(/\$(\d+)(::[a-z0-9_]+)?/g, (_match, index: string, cast = '') => {
    const value = query.parameters[Number(index) - 1];
    // The cast is part of the key: a parameter keeps one type in PostgreSQL.
    const key = `${typeof value}:${value instanceof Date ? value.toISOString() : String(value)}:${cast}`;
    const primitive = value === null || ['string', 'number', 'boolean'].includes(typeof value);
    let position = primitive ? byKey.get(key) : undefined;
    if (position === undefined) {
      parameters.push(value);
      position = parameters.length;
      if (primitive) byKey.set(key, position);
    }
    return `$${position}${cast}`;
  });
  return { sql: text, parameters };
}
