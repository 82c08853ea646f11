// The wire shapes of POST /query/.
import { Type } from 'typebox';

export const QueryBody = Type.Object(
  {
    query: Type.Object(
      {
        kind: Type.String({ description: '`HogQLQuery` or `EventsQuery`.' }),
      },
      { additionalProperties: true, description: 'The query node; its `kind` says which.' },
    ),
    refresh: Type.Optional(Type.Unknown({ description: 'Accepted and ignored: every answer is computed at once.' })),
    client_query_id: Type.Optional(Type.String({ description: 'Accepted and ignored.' })),
    name: Type.Optional(Type.String({ description: 'Accepted and ignored.' })),
  },
  {
    additionalProperties: true,
    examples: [
      {
        query: {
          kind: 'HogQLQuery',
          query:
            'select event, count() from events where timestamp > now() - interval 7 day and person.properties.email like {domain} group by event order by count() desc limit 10',
          values: { domain: '%@example.com' },
        },
      },
      {
        query: {
          kind: 'EventsQuery',
          select: ['*', 'event', 'person', 'properties.$browser', 'timestamp'],
          where: ["properties.$browser = 'Chrome'"],
          properties: [{ key: 'email', value: 'example.com', operator: 'icontains', type: 'person' }],
          event: '$pageview',
          after: '-7d',
          orderBy: ['timestamp DESC'],
          limit: 50,
        },
      },
    ],
  },
);

export const QueryResponse = Type.Object(
  {
    results: Type.Array(Type.Array(Type.Unknown()), { description: 'The rows, each an array in column order.' }),
    columns: Type.Array(Type.String(), {
      description: 'Each column by its alias, a plain field by its name, anything else as printed HogQL.',
    }),
    types: Type.Array(Type.Unknown(), {
      description:
        "One per column: HogQLQuery gives `[name, type]` pairs, EventsQuery the type names (ClickHouse spelling: `String`, `UInt64`, `DateTime64(6, 'UTC')`…).",
    }),
    hasMore: Type.Boolean({ description: 'More rows follow this page.' }),
    limit: Type.Integer(),
    offset: Type.Integer(),
    hogql: Type.String({ description: 'The query as herd understood it (HogQL, with the row limit it ran with).' }),
  },
  {
    $id: 'QueryResponse',
    description: 'The rows of a query with their columns and types, whether more follow, and the query as herd ran it.',
    examples: [
      {
        results: [
          ['$pageview', 1234],
          ['signed_up', 12],
        ],
        columns: ['event', 'count()'],
        types: [
          ['event', 'String'],
          ['count()', 'UInt64'],
        ],
        hasMore: false,
        limit: 10,
        offset: 0,
        hogql:
          'SELECT event, count() FROM events WHERE (timestamp > (now() - INTERVAL 7 DAY)) AND (person.properties.email LIKE {domain}) GROUP BY event ORDER BY count() DESC LIMIT 10',
      },
    ],
  },
);
