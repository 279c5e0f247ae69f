import { isDeepStrictEqual } from 'node:util';
import { AppendResult, EventData, EventIdReusedError } from './event-store.port';

/** What a store holds under an event id, as far as telling a replayed append from a reused id goes. */
export interface StoredEventIdentity {
  streamId: string;
  revision: number;
  position: number;
  type: string;
  data: unknown;
}

/**
 * Appends are idempotent by event id (the contract suite holds every adapter to it). Given what the store
 * holds under the ids of an append's events, tells whether the append is new (`undefined`: none of its ids
 * is stored), a replay of one already written (its events, in the same order, consecutive in the same stream,
 * with the same type and data: the first answer again, and nothing is written, whatever the expected
 * revision now), or a reuse of ids, refused. Metadata is not compared: a replay is the same events sent
 * again, and the content that matters to a reader is the type and the data.
 */
export function replayedAppend(
  streamId: string,
  events: EventData[],
  stored: (eventId: string) => StoredEventIdentity | undefined,
): AppendResult | EventIdReusedError | undefined {
  const repeated = repeatedEventId([{ streamId, events }]);
  if (repeated) return repeated;
  const found = events.map((event) => stored(event.metadata.eventId));
  if (found.every((f) => f === undefined)) return undefined;
  for (const [i, event] of events.entries()) {
    const f = found[i];
    const id = event.metadata.eventId;
    if (!f)
      return new EventIdReusedError(streamId, id, 'is new, but others of its append were stored before');
    if (f.streamId !== streamId)
      return new EventIdReusedError(streamId, id, `is already used in ${f.streamId}`);
    if (f.type !== event.type || !isDeepStrictEqual(normalised(f.data), normalised(event.data))) {
      return new EventIdReusedError(streamId, id, 'is already used by an event with other content');
    }
    if (i > 0 && f.revision !== (found[i - 1] as StoredEventIdentity).revision + 1) {
      return new EventIdReusedError(streamId, id, 'was stored, but not in the order of this append');
    }
  }
  const last = found[found.length - 1] as StoredEventIdentity;
  return { nextRevision: last.revision, position: last.position };
}

/** The data as any store gives it back: through JSON (undefined members dropped, dates as strings). */
const normalised = (data: unknown): unknown => JSON.parse(JSON.stringify(data ?? null));

/** An event id given twice in one call (`appendMany` over its parts): refused before anything is looked up. */
export function repeatedEventId(
  parts: { streamId: string; events: EventData[] }[],
): EventIdReusedError | undefined {
  const seen = new Set<string>();
  for (const part of parts) {
    for (const event of part.events) {
      if (seen.has(event.metadata.eventId)) {
        return new EventIdReusedError(part.streamId, event.metadata.eventId, 'appears twice in one append');
      }
      seen.add(event.metadata.eventId);
    }
  }
  return undefined;
}
