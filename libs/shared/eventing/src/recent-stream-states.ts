import type { StreamStateCache } from './command-handler';

/**
 * The folded states of the most recently used streams (least recently used dropped beyond `capacity`), so a
 * command or a read by id (`loadState` from the cached state) reads and folds only the stream's newest
 * events: an entity with a long history costs the same as a new one, and one read several times per request
 * is folded once. Always caught up by that read, so an entry left behind by another process's appends costs
 * a read, never a stale answer.
 */
export class RecentStreamStates<State> implements StreamStateCache<State> {
  private readonly entries = new Map<string, { state: State; revision: number }>();

  constructor(private readonly capacity = 50_000) {}

  get(streamId: string) {
    return this.entries.get(streamId);
  }

  set(streamId: string, state: State, revision: number): void {
    this.entries.delete(streamId);
    this.entries.set(streamId, { state, revision });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }
}
