// Event and person identifiers: UUIDv7 for events the client sent without one, and PostHog's
// deterministic UUIDv5 person ids (so a person's uuid is the same whichever server creates it).
import crypto from 'node:crypto';

// PostHog's namespace for person UUIDs, "<team_id>:<distinct_id>" hashed into it.
const PERSON_NAMESPACE = '932979b4-65c3-4424-8467-0b66ec27bc22';
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function format(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** A time-ordered UUID (RFC 9562 version 7) for the given instant. */
export function uuidV7(at: Date = new Date()): string {
  const bytes = crypto.randomBytes(16);
  const ms = BigInt(Math.max(0, at.getTime()));
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return format(bytes);
}

/** A name-based UUID (RFC 9562 version 5, SHA-1) of `name` in `namespace`. */
export function uuidV5(name: string, namespace: string): string {
  const hash = crypto
    .createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest()
    .subarray(0, 16);
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  return format(hash);
}

export function personUuid(teamId: number, distinctId: string): string {
  return uuidV5(`${teamId}:${distinctId}`, PERSON_NAMESPACE);
}
