// The capture body as the document shows it. Capture reads its body as bytes (JSON, gzip or form
// data=) and checks it itself, so this schema is never used to validate.
import { Type } from 'typebox';

const PROPERTIES = Type.Record(Type.String(), Type.Unknown(), {
  description:
    "The event's properties. `$set`, `$set_once` and `$unset` in them change the person; with `$identify`, `$anon_distinct_id` merges that anonymous id into the person; `$process_person_profile: false` stores the event without making a person (it counts for the person its id gets later); `token` may carry the project token.",
});

export const CaptureEvent = Type.Object(
  {
    event: Type.String({
      description: 'Its name: `$pageview`, `$identify`, `$create_alias`, `$merge_dangerously`, … or your own.',
    }),
    distinct_id: Type.String({
      description: 'Whom it is about (or `$distinct_id`, or `properties.distinct_id`); cut to 200 characters.',
    }),
    properties: Type.Optional(PROPERTIES),
    timestamp: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          "When it happened, by the client's clock (corrected with the batch's `sent_at`); default the time it arrives.",
      }),
    ),
    offset: Type.Optional(
      Type.Number({ description: 'Milliseconds before sending it happened, instead of `timestamp`.' }),
    ),
    uuid: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          'Its id: an event whose uuid is already stored is skipped, so a retried batch is not counted twice.',
      }),
    ),
    $set: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Person properties to set (also read from `properties`).',
      }),
    ),
    $set_once: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Person properties to set unless already set.' }),
    ),
    $unset: Type.Optional(Type.Array(Type.String(), { description: 'Person properties to remove.' })),
    api_key: Type.Optional(Type.String({ description: 'The project token, on a single event (or `token`).' })),
  },
  { title: 'CaptureEvent', description: 'One event, as the SDKs send it.' },
);

const now = '2026-03-02T10:00:00.000Z';
const BATCH = {
  api_key: 'phc_your_project_token',
  sent_at: now,
  batch: [
    {
      event: '$pageview',
      distinct_id: '0190a1b2-anon',
      timestamp: '2026-03-02T09:59:30.000Z',
      properties: { $current_url: 'https://example.com/pricing', $process_person_profile: false },
    },
    {
      event: '$identify',
      distinct_id: 'ada-42',
      timestamp: now,
      properties: { $anon_distinct_id: '0190a1b2-anon', $set: { email: 'ada@example.com', plan: 'pro' } },
    },
  ],
};
const SINGLE = {
  api_key: 'phc_your_project_token',
  event: 'signed up',
  distinct_id: 'ada-42',
  properties: { plan: 'pro' },
};

export const CaptureBody = Type.Unsafe<unknown>({
  content: {
    'application/json': {
      schema: {
        anyOf: [
          Type.Object(
            {
              api_key: Type.String({
                description: "The project token (`phc_…`), or `token`; wins over the events' own.",
              }),
              batch: Type.Array(CaptureEvent, { description: 'The events, applied in order.' }),
              sent_at: Type.Optional(
                Type.String({
                  format: 'date-time',
                  description:
                    "When the client sent the batch, by its clock: corrects the events' timestamps for clock skew.",
                }),
              ),
            },
            { title: 'CaptureBatch', description: 'A batch of events.' },
          ),
          Type.Array(CaptureEvent, { description: 'A list of events, each with its token.' }),
          CaptureEvent,
        ],
        description:
          'A batch object, a list of events or one event; gzip-compressed or not (told by its magic bytes, whatever the headers say).',
        'x-examples': {
          batch: { summary: 'A batch: an anonymous pageview, then the identify that links it', value: BATCH },
          single: { summary: 'One event', value: SINGLE },
        },
      },
    },
    'application/x-www-form-urlencoded': {
      schema: Type.Object(
        { data: Type.String({ description: 'The JSON body, base64-encoded (gzip inside is recognised too).' }) },
        { description: 'What posthog-js sends from old browsers.' },
      ),
    },
  },
});
