// Wire schemas of saved insights: a name and the filters that draw an insight, per project.
import { Type, type Static } from 'typebox';
import { DateTimeOf, Nullable, PageQuery, PROJECT_ID, UserBasic } from '../../wire/schemas.ts';

/** The largest `filters` stored, as JSON text. */
export const MAX_FILTERS_LENGTH = 100_000;

export const SavedInsight = Type.Object(
  {
    id: Type.Integer({ description: "The insight's integer id." }),
    short_id: Type.String({
      description: 'Eight letters and digits, unique in the project: what a shared link names.',
    }),
    name: Type.String(),
    description: Type.String(),
    filters: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'The insight as the insight endpoints take it (`insight`, `events`, `date_from`, `interval`, `breakdown`, `properties`, …), stored as given.',
    }),
    created_at: DateTimeOf('When it was saved first.'),
    created_by: Nullable(UserBasic, 'The user whose key saved it.'),
    last_modified_at: DateTimeOf('When its name, description or filters last changed.'),
    last_modified_by: Nullable(UserBasic, 'The user whose key changed them last.'),
  },
  { title: 'SavedInsight', description: 'An insight saved in a project, to open again and share.' },
);
export type SavedInsightWire = Static<typeof SavedInsight>;

export const InsightParams = Type.Object({
  project_id: PROJECT_ID,
  id: Type.Integer({ minimum: 1, maximum: 2147483647, description: "The insight's integer id." }),
});

export const InsightListQuery = Type.Object({
  ...PageQuery.properties,
  search: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Insights whose name or description contains this text, ignoring case (`%` and `_` match themselves).',
    }),
  ),
  short_id: Type.Optional(Type.String({ maxLength: 20, description: 'Only the insight of this short id.' })),
});

const FILTERS = Type.Optional(
  Type.Unknown({
    description: `A JSON object, at most ${MAX_FILTERS_LENGTH.toLocaleString('en')} characters as JSON; anything else is a 400 on \`filters\`.`,
    examples: [{ insight: 'TRENDS', events: [{ id: '$pageview' }], date_from: '-7d', interval: 'day' }],
  }),
);
const fields = {
  description: Type.Optional(Type.String({ maxLength: 1000, description: 'Free text, up to 1000 characters.' })),
  filters: FILTERS,
};

export const CreateInsightBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 400, description: 'Its name, up to 400 characters; default empty.' })),
  ...fields,
});
export const UpdateInsightBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 400, description: 'Its new name, up to 400 characters.' })),
  ...fields,
  deleted: Type.Optional(
    Type.Boolean({ description: 'true deletes it, as the platform deletes with PATCH (DELETE does the same).' }),
  ),
});
export type InsightInput = Static<typeof UpdateInsightBody>;
