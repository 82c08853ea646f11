// What the SDKs read from their configuration endpoints: the remote config (posthog-js), the
// flags answer (/flags, posthog-js and posthog-node) and the older /decide answer, which is both.
import { Type, type Static } from 'typebox';

const Off = Type.Literal(false);

/** The fields of a project's remote config, every optional product reported off. */
export const remoteConfigFields = {
  token: Type.String({ description: 'The project token.' }),
  supportedCompression: Type.Array(Type.String(), { description: 'Body encodings capture accepts beside plain JSON.' }),
  hasFeatureFlags: Type.Boolean({ description: 'Always false: herd evaluates no feature flags.' }),
  analytics: Type.Object({ endpoint: Type.String() }, { description: 'Where the SDK sends events.' }),
  elementsChainAsString: Type.Boolean(),
  defaultIdentifiedOnly: Type.Boolean(),
  autocapture_opt_out: Type.Boolean(),
  captureDeadClicks: Off,
  capturePerformance: Off,
  autocaptureExceptions: Off,
  errorTracking: Type.Object({ autocaptureExceptions: Off, suppressionRules: Type.Array(Type.Unknown()) }),
  logs: Type.Object({ captureConsoleLogs: Off }),
  sessionRecording: Off,
  heatmaps: Off,
  surveys: Off,
  productTours: Off,
  conversations: Off,
  siteApps: Type.Array(Type.Unknown()),
  toolbarParams: Type.Object({}),
  isAuthenticated: Off,
};

export const RemoteConfig = Type.Object(remoteConfigFields, {
  title: 'RemoteConfig',
  description:
    "A project's remote config for posthog-js: capture on, every optional product (recordings, surveys, heatmaps, …) off.",
});
export type RemoteConfig = Static<typeof RemoteConfig>;

const Flags = Type.Record(Type.String(), Type.Unknown());

/** /flags: `flags` (details) from v=2 on, `featureFlags`/`featureFlagPayloads` before; the config with config=true. */
export const FlagsResponse = Type.Object(
  {
    flags: Type.Optional(Flags),
    featureFlags: Type.Optional(Flags),
    featureFlagPayloads: Type.Optional(Flags),
    errorsWhileComputingFlags: Type.Boolean(),
    requestId: Type.String({ format: 'uuid' }),
    evaluatedAt: Type.Optional(Type.Integer()),
    ...Type.Partial(RemoteConfig).properties,
  },
  {
    title: 'FlagsResult',
    description:
      'The feature flags of a person: none. From `v=2` on `flags` (details), before it `featureFlags` and `featureFlagPayloads`; with `config=true` the remote config fields too.',
  },
);
export type FlagsResponse = Static<typeof FlagsResponse>;

/** /decide: the config always; flags as a list of enabled keys (v1), a map (v2, v3), details too (v4). */
export const DecideResponse = Type.Object(
  {
    ...remoteConfigFields,
    config: Type.Object({ enable_collect_everything: Type.Boolean() }),
    featureFlags: Type.Union([Type.Array(Type.String()), Flags]),
    featureFlagPayloads: Type.Optional(Flags),
    flags: Type.Optional(Flags),
    errorsWhileComputingFlags: Type.Boolean(),
    requestId: Type.Optional(Type.String({ format: 'uuid' })),
  },
  {
    title: 'DecideResult',
    description:
      'The remote config and the flags (none) in one answer: `featureFlags` a list of enabled keys before `v=2`, a map from it; payloads from `v=3`; details from `v=4`.',
  },
);
export type DecideResponse = Static<typeof DecideResponse>;

export const FlagsQuery = Type.Object({
  v: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 100, description: "The answer's version, as the SDK asks (default 1)." }),
  ),
  config: Type.Optional(Type.String({ description: '`true`: add the remote config to the flags.' })),
  token: Type.Optional(
    Type.String({ description: 'The project token, when the body does not carry it (`token` or `api_key` there).' }),
  ),
  api_key: Type.Optional(Type.String({ description: 'The same as `token`.' })),
});
export type FlagsQuery = Static<typeof FlagsQuery>;

/** The body of /flags and /decide as the document shows it (read as bytes and checked by the service). */
export const FlagsBody = Type.Object(
  {
    distinct_id: Type.String({ description: 'Whose flags: required.' }),
    token: Type.Optional(Type.String({ description: 'The project token (or `api_key`), unless the query has it.' })),
    groups: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Accepted and ignored.' })),
    person_properties: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Accepted and ignored.' }),
    ),
  },
  {
    description: 'JSON, gzip or a form with `data=` (base64).',
    examples: [{ token: 'phc_your_project_token', distinct_id: 'ada-42' }],
  },
);
