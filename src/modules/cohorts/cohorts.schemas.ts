// Wire schemas of the cohorts resource.
import { Type, type Static } from 'typebox';
import { DateTimeOf, Nullable, PROJECT_ID, PROPERTY_FILTER_EXAMPLE, UserBasic } from '../../wire/schemas.ts';

const COUNT = Type.Integer({
  description: 'How many persons it holds now: its members (static) or the persons its filter matches (dynamic).',
});

export const Cohort = Type.Object(
  {
    id: Type.Integer({ description: 'The id a `cohort` property filter names as its value.' }),
    name: Type.String(),
    description: Type.String(),
    filters: Nullable(
      Type.Record(Type.String(), Type.Unknown()),
      'A dynamic cohort\'s filter, `{"properties": <property filter group>}`; null for a static cohort unless given.',
    ),
    is_static: Type.Boolean({
      description: 'Static: a list of persons; dynamic: whoever matches `filters` at the time.',
    }),
    count: COUNT,
    created_at: DateTimeOf('When it was created.'),
    created_by: Nullable(UserBasic, 'The user whose key created it.'),
  },
  {
    title: 'Cohort',
    description: 'A cohort of a project: a static list of persons, or a property filter over persons.',
  },
);
export type CohortWire = Static<typeof Cohort>;

/** A cohort as a person's cohorts list it. */
export const PersonCohort = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    count: COUNT,
    is_static: Type.Boolean(),
    created_at: DateTimeOf('When it was created.'),
  },
  { title: 'PersonCohort', description: 'A cohort that holds the person.' },
);
export type PersonCohortWire = Static<typeof PersonCohort>;

export const CohortParams = Type.Object({
  project_id: PROJECT_ID,
  id: Type.Integer({ minimum: 1, maximum: 2147483647, description: "The cohort's integer id." }),
});

const fields = {
  description: Type.Optional(
    Type.String({ maxLength: 1000, description: 'Free text, up to 1000 characters; default empty.' }),
  ),
  filters: Type.Optional(
    Type.Unknown({
      description:
        '`{"properties": <property filter group>}`: who a dynamic cohort holds. The group takes `person` and `cohort` filters (other cohorts of the project, no cycle); see the `properties` parameter of the persons list. A bad filter is a 400 on `filters`.',
      examples: [{ properties: JSON.parse(PROPERTY_FILTER_EXAMPLE) }],
    }),
  ),
  is_static: Type.Optional(
    Type.Boolean({
      description:
        'Static (true) or dynamic (false, the default). Made static, a cohort keeps the persons it matched (or `distinct_ids`); made dynamic, it drops its list.',
    }),
  ),
  distinct_ids: Type.Optional(
    Type.Array(Type.String(), {
      description:
        "A static cohort's members, by distinct id (at most 10 000; ids of no person are skipped); replaces the list on PATCH.",
    }),
  ),
};

export const CreateCohortBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 400, description: 'Its name, 1 to 400 characters (not blank).' }),
  ...fields,
});
export const UpdateCohortBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 400, description: 'Its new name (not blank).' })),
  ...fields,
});
export type CohortInput = Static<typeof UpdateCohortBody>;
