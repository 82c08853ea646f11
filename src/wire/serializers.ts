// Row → wire shapes shared by several resources.
import type { MembershipRow, UserRow } from '../db/schema.ts';

const iso = (value: Date) => value.toISOString();
export const isoOrNull = (value: Date | null) => (value ? value.toISOString() : null);

const HEDGEHOG_KEYS = ['use_as_profile', 'color', 'accessories', 'skin'] as const;

/** The reduced hedgehog config the platform shows; null when nothing is stored. */
export function hedgehogConfigOf(stored: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!stored || typeof stored !== 'object' || Array.isArray(stored) || Object.keys(stored).length === 0) return null;
  const options = (stored.actor_options ?? stored) as Record<string, unknown>;
  return Object.fromEntries(
    HEDGEHOG_KEYS.map((key) => [key, (key === 'use_as_profile' ? stored[key] : options[key]) ?? null]),
  );
}

export type UserBasicWire = ReturnType<typeof serializeUser>;

export function serializeUser(user: UserRow) {
  return {
    id: user.id,
    uuid: user.uuid,
    distinct_id: user.distinct_id,
    first_name: user.first_name,
    last_name: user.last_name,
    email: user.email,
    // The reference types it boolean; a user who never verified (stored null) is false.
    is_email_verified: user.is_email_verified ?? false,
    hedgehog_config: hedgehogConfigOf(user.hedgehog_config),
  };
}

export function serializeMember(membership: MembershipRow, user: UserRow) {
  return {
    id: membership.id,
    user: serializeUser(user),
    level: membership.level,
    joined_at: iso(membership.joined_at),
    updated_at: iso(membership.updated_at),
    is_2fa_enabled: user.is_2fa_enabled,
    has_social_auth: user.has_social_auth,
  };
}

export { iso };
