// A person in a path or parameter is named by its integer id or its uuid.
import { validationError } from '../../errors.ts';
import { isUuid } from '../../wire/ids.ts';
import type { PersonRef } from './persons.repository.ts';

const COMPACT = /^[0-9a-f]{32}$/i;

/** The id or uuid in `raw`; null when it is neither. An integer beyond any id names nobody (id -1). */
export function personRefOf(raw: string): PersonRef | null {
  const value = raw.trim();
  if (/^[+-]?\d+$/.test(value)) {
    const id = Number(value);
    return { id: Number.isSafeInteger(id) ? id : -1 };
  }
  if (isUuid(value)) return { uuid: value.toLowerCase() };
  if (COMPACT.test(value)) {
    const hex = value.toLowerCase();
    return {
      uuid: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    };
  }
  return null;
}

/** As personRefOf, or the platform's 400 that points at the distinct_id filter. */
export function parsePersonRef(raw: string, attr: string | null = null): PersonRef {
  const ref = personRefOf(raw);
  if (!ref) {
    throw validationError(
      `The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=${raw} instead.`,
      attr,
    );
  }
  return ref;
}
