import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** Resource ids: the prefix before the first '-' is the stream category (ARCHITECTURE.md, "Streams"). */
export const newId = (prefix: string): string => `${prefix}-${randomUUID()}`;

/**
 * A name-based (version 5 style) UUID: the same inputs always give the same id, so that a public Event
 * derived from a domain event keeps its eventId when the records are rebuilt from the log.
 */
export function deterministicUuid(...parts: string[]): string {
  const bytes = createHash('sha1').update(parts.join('\u0000')).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A time-ordered UUID (version 7, RFC 9562 section 5.7): 48 bits of Unix milliseconds, then random bits. The
 * ids of events: the event stores index them (appends are idempotent by event id), and ids that grow with
 * time are added at the right edge of that index instead of at random places in it (a random v4 id made a
 * SQLite group commit 1.4x slower: STACK-NOTES, "Appends idempotent by event id"). Hand-written: Node 20 has
 * no `randomUUIDv7`, and the layout is a dozen lines of the RFC.
 */
export function timeOrderedUuid(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
