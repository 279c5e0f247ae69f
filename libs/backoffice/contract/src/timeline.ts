import type { AuditEntry } from './audit';

/** One line of a user's or card's timeline: a public Event of the platform, or a staff action on it. */
export type TimelineEntry =
  | { kind: 'event'; at: string; eventId: string; eventName: string; body: unknown }
  | { kind: 'audit'; at: string; entry: AuditEntry };
