// What the SDKs read from their configuration endpoints: the remote config (posthog-js), the
// flags answer (/flags, posthog-js and posthog-node) and the older /decide answer, which is both.
import { Type, type Static } from 'typebox';

const Off = Type.Literal(false);

/** The fields of a project's remote config, every optional product reported off. */
export const remoteConfigFields = {
  token: Type.String(),
  supportedCompression: Type.Array(Type.String()),
  hasFeatureFlags: Type.Boolean(),
  analytics: Type.Object({ endpoint: Type.String() }),
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

export const RemoteConfig = Type.Object(remoteConfigFields);
export type RemoteConfig = Static<typeof RemoteConfig>;

const Flags = Type.Record(Type.String(), Type.Unknown());

/** /flags: `flags` (details) from v=2 on, `featureFlags`/`featureFlagPayloads` before; the config with config=true. */
export const FlagsResponse = Type.Object({
  flags: Type.Optional(Flags),
  featureFlags: Type.Optional(Flags),
  featureFlagPayloads: Type.Optional(Flags),
  errorsWhileComputingFlags: Type.Boolean(),
  requestId: Type.String({ format: 'uuid' }),
  evaluatedAt: Type.Optional(Type.Integer()),
  ...Type.Partial(RemoteConfig).properties,
});
export type FlagsResponse = Static<typeof FlagsResponse>;

/** /decide: the config always; flags as a list of enabled keys (v1), a map (v2, v3), details too (v4). */
export const DecideResponse = Type.Object({
  ...remoteConfigFields,
  config: Type.Object({ enable_collect_everything: Type.Boolean() }),
  featureFlags: Type.Union([Type.Array(Type.String()), Flags]),
  featureFlagPayloads: Type.Optional(Flags),
  flags: Type.Optional(Flags),
  errorsWhileComputingFlags: Type.Boolean(),
  requestId: Type.Optional(Type.String({ format: 'uuid' })),
});
export type DecideResponse = Static<typeof DecideResponse>;

export const FlagsQuery = Type.Object({
  v: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  config: Type.Optional(Type.String()),
  token: Type.Optional(Type.String()),
  api_key: Type.Optional(Type.String()),
});
export type FlagsQuery = Static<typeof FlagsQuery>;
