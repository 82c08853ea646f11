// The ordered list of migrations. Add a file NNNN_name.ts and list it here; never edit a landed one.
import type { Migration } from 'kysely';
import * as initial from './0001_initial.ts';
import * as persons from './0004_persons.ts';
import * as analytics from './0006_analytics.ts';
import * as personlessIds from './0007_personless_ids.ts';
import * as personOrder from './0008_events_person_order.ts';
import * as scaleOut from './0009_scale_out.ts';
import * as accessChanges from './0010_access_changes.ts';
import * as eventsPage from './0011_events_page.ts';
import * as sharedLimits from './0012_shared_limits.ts';
import * as privacy from './0013_privacy.ts';
import * as eventsList from './0016_events_list.ts';
import * as definitions from './0017_definitions.ts';
import * as eventsPersonKey from './0018_events_person_key.ts';
import * as cohortPeopleByPerson from './0019_cohort_people_by_person.ts';
import * as personsHotUpdates from './0020_persons_hot_updates.ts';

export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0004_persons': persons,
  '0006_analytics': analytics,
  '0007_personless_ids': personlessIds,
  '0008_events_person_order': personOrder,
  '0009_scale_out': scaleOut,
  '0010_access_changes': accessChanges,
  '0011_events_page': eventsPage,
  '0012_shared_limits': sharedLimits,
  '0013_privacy': privacy,
  '0016_events_list': eventsList,
  '0017_definitions': definitions,
  '0018_events_person_key': eventsPersonKey,
  '0019_cohort_people_by_person': cohortPeopleByPerson,
  '0020_persons_hot_updates': personsHotUpdates,
};
