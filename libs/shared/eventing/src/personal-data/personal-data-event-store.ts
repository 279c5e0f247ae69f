import type {
  AppendResult,
  EventData,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  RecordedEvent,
  StoreSubscription,
  StreamAppend,
  SubscribeOptions,
} from '../event-store.port';
import type { PersonalDataVault } from './personal-data-vault';

/**
 * The event store as the contexts use it: personal fields are sealed on append and opened on every read,
 * so deciders, projections and sagas see plain events while the log only ever holds sealed ones.
 */
export class PersonalDataEventStore implements EventStore {
  /** Offered exactly when the stored log offers it (see `EventStore.appendMany`). */
  readonly appendMany?: (appends: StreamAppend[]) => Promise<AppendResult[]>;

  constructor(
    /** The log as stored (exports and the relay read it as it is: sealed). */
    readonly stored: EventStore,
    private readonly vault: PersonalDataVault,
  ) {
    const appendMany = stored.appendMany?.bind(stored);
    if (appendMany) {
      this.appendMany = async (appends) =>
        appendMany(
          await Promise.all(appends.map(async (a) => ({ ...a, events: await this.vault.seal(a.events) }))),
        );
    }
  }

  get name(): string {
    return this.stored.name;
  }

  async append(
    streamId: string,
    events: EventData[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult> {
    return this.stored.append(streamId, await this.vault.seal(events), options);
  }

  async readStream(
    streamId: string,
    options?: { fromRevision?: number; maxCount?: number },
  ): Promise<RecordedEvent[]> {
    return this.vault.open(await this.stored.readStream(streamId, options));
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.vault.open(await this.stored.readAll(options));
  }

  headPosition(): Promise<number> {
    return this.stored.headPosition();
  }

  subscribeToAll(options: SubscribeOptions): StoreSubscription {
    return this.stored.subscribeToAll({
      ...options,
      onEvents: async (events) => options.onEvents(await this.vault.open(events)),
    });
  }

  close(): Promise<void> {
    return this.stored.close();
  }
}
