import {
  CommandContext,
  envelope,
  EventStore,
  loadState,
  StreamStateCache,
  WrongExpectedRevisionError,
} from '@cip/shared/eventing';
import { WalletCommand, walletDecider, WalletState } from '@cip/wallets/domain';

/** At most this many commands of one wallet are decided together and appended at once. */
const MAX_BATCH = 256;

interface Queued {
  build: (state: WalletState) => WalletCommand;
  context: CommandContext;
  resolve: (state: WalletState) => void;
  reject: (error: unknown) => void;
}

interface WalletQueue {
  store: EventStore;
  walletId: string;
  cache: StreamStateCache<WalletState>;
  waiting: Queued[];
}

/**
 * Runs the commands of one wallet one after the other within this process, in batches: while an append
 * of a wallet is in flight, the commands that arrive for it wait, then are decided one after the other on
 * the state each leaves (exactly as if they had run alone, in order: a refused command records nothing
 * and the next one sees the same state), and their events are appended together with the revision that
 * was read. A hot wallet thus costs one append per batch rather than one per command (the durable commit
 * is the bulk of a command's cost). Optimistic concurrency still guards against other processes: when
 * another writer got there first, the whole batch is decided again on the fresh state, up to
 * `maxAttempts` times; when the append fails otherwise, every command of the batch fails (none was
 * recorded). Each command answers the wallet state after its own events.
 *
 * Hand-written: the batching is tied to the wallet decider and to the event store's expected revision.
 */
export class WalletCommandBatches {
  private readonly queues = new Map<string, WalletQueue>();

  constructor(private readonly maxAttempts: number) {}

  run(
    store: EventStore,
    walletId: string,
    cache: StreamStateCache<WalletState>,
    context: CommandContext,
    build: (state: WalletState) => WalletCommand,
  ): Promise<WalletState> {
    return new Promise<WalletState>((resolve, reject) => {
      const key = `${store.name}/${walletId}`;
      const queued = this.queues.get(key);
      if (queued) {
        queued.waiting.push({ build, context, resolve, reject });
        return;
      }
      const queue: WalletQueue = { store, walletId, cache, waiting: [{ build, context, resolve, reject }] };
      this.queues.set(key, queue);
      void this.drain(key, queue);
    });
  }

  private async drain(key: string, queue: WalletQueue): Promise<void> {
    try {
      while (queue.waiting.length > 0) await this.runBatch(queue, queue.waiting.splice(0, MAX_BATCH));
    } finally {
      this.queues.delete(key);
    }
  }

  private async runBatch(queue: WalletQueue, batch: Queued[]): Promise<void> {
    const { store, walletId, cache } = queue;
    for (let attempt = 1; ; attempt++) {
      let outcomes: ({ state: WalletState } | { error: unknown })[];
      try {
        const loaded = await loadState(store, walletDecider, walletId, cache.get(walletId));
        cache.set(walletId, loaded.state, loaded.revision);
        let state = loaded.state;
        const envelopes: ReturnType<typeof envelope>[] = [];
        outcomes = batch.map(({ build, context }) => {
          try {
            const events = walletDecider.decide(build(state), state);
            for (const event of events) state = walletDecider.evolve(state, event);
            envelopes.push(...events.map((event) => envelope(event, context)));
            return { state };
          } catch (error) {
            return { error };
          }
        });
        if (envelopes.length > 0) {
          const expectedRevision = loaded.revision < 0 ? 'no_stream' : loaded.revision;
          const result = await store.append(walletId, envelopes, { expectedRevision });
          cache.set(walletId, state, result.nextRevision);
        }
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError && attempt < this.maxAttempts) continue;
        for (const queued of batch) queued.reject(error);
        return;
      }
      batch.forEach((queued, i) => {
        const outcome = outcomes[i];
        if ('error' in outcome) queued.reject(outcome.error);
        else queued.resolve(outcome.state);
      });
      return;
    }
  }
}
