// Event and person identifiers: UUIDv7 for events the client sent without one, and PostHog's
// deterministic UUIDv5 person ids (so a person's uuid is the same whichever server creates it).
import crypto from 'node:crypto';

// PostHog's namespace for person UUIDs, "<team_id>:<distinct_id>" hashed into it.
const PERSON_NAMESPACE = '932979b4-65c3-4424-8467-0b66ec27bc22';

function format(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
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

let lastMs = -1;
let sequence = 0;

/**
 * A UUIDv7 strictly greater than every earlier one of this process (RFC 9562 §6.2, method 1: a
 * 12-bit counter after the wall-clock milliseconds), so rows ordered by it keep the order they were
 * written in, even within one millisecond.
 */
export function monotonicUuidV7(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    // Start low in the counter's range, leaving room for the rows of a busy millisecond.
    sequence = crypto.randomInt(0, 0x400);
  } else if (++sequence > 0xfff) {
    lastMs += 1;
    sequence = 0;
  }
  const bytes = Buffer.from(uuidV7(new Date(lastMs)).replace(/-/g, ''), 'hex');
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
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
