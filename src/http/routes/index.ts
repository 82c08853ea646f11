// Every resource's routes, registered in one place. Add a module here to expose it.
import type { RouteModule } from '../route-module.ts';
import { definitionRoutes } from './definitions.routes.ts';
import { deletionStatusRoutes } from './deletion-status.routes.ts';
import { eventRoutes } from './events.routes.ts';
import { healthRoutes } from './health.routes.ts';
import { insightRoutes } from './insights.routes.ts';
import { memberRoutes } from './members.routes.ts';
import { organizationRoutes } from './organizations.routes.ts';
import { personAnalyticsRoutes } from './person-analytics.routes.ts';
import { captureRoutes } from './capture.routes.ts';
import { personalApiKeyRoutes } from './personal-api-keys.routes.ts';
import { projectRoutes } from './projects.routes.ts';
import { roleRoutes } from './roles.routes.ts';
import { cohortRoutes } from './cohorts.routes.ts';
import { consoleRoutes } from './console.routes.ts';
import { personRoutes } from './persons.routes.ts';
import { personActionRoutes } from './persons-actions.routes.ts';
import { personViewRoutes } from './persons-views.routes.ts';
import { queryRoutes } from './query.routes.ts';
import { privacyRoutes } from './privacy.routes.ts';
import { savedInsightRoutes } from './saved-insights.routes.ts';
import { sdkConfigRoutes } from './sdk-config.routes.ts';
import { setupRoutes } from './setup.routes.ts';
import { staticSdkRoutes } from './static-sdk.routes.ts';

export const routeModules: RouteModule[] = [
  healthRoutes,
  setupRoutes,
  organizationRoutes,
  memberRoutes,
  projectRoutes,
  personalApiKeyRoutes,
  roleRoutes,
  deletionStatusRoutes,
  privacyRoutes,
  captureRoutes,
  personAnalyticsRoutes,
  insightRoutes,
  queryRoutes,
  savedInsightRoutes,
  personRoutes,
  personActionRoutes,
  personViewRoutes,
  eventRoutes,
  cohortRoutes,
  definitionRoutes,
  sdkConfigRoutes,
  staticSdkRoutes,
  consoleRoutes,
];
