import type {
  DepositSink,
  JournaledPayout,
  ObservedDeposit,
  PayoutJournal,
  WatcherCheckpoint,
} from '../chain.ports';

/**
 * A sink that behaves as the wallets service must: credits each transfer once, keyed by hash + log index.
 * `deliveries` keeps every hand-over (re-deliveries included), `credited` only the first of each.
 */
export class InMemoryDepositSink implements DepositSink {
  readonly deliveries: ObservedDeposit[] = [];
  readonly credited: ObservedDeposit[] = [];
  private readonly addresses = new Set<string>();
  private readonly keys = new Set<string>();
  /** Called on each delivery before it is recorded; a test makes it throw to simulate a crash mid-poll. */
  onCredit: (deposit: ObservedDeposit) => Promise<void> | void = () => undefined;

  addDepositAddress(address: string): void {
    this.addresses.add(address.toLowerCase());
  }

  async isDepositAddress(address: string): Promise<boolean> {
    return this.addresses.has(address.toLowerCase());
  }

  async credit(deposit: ObservedDeposit): Promise<void> {
    await this.onCredit(deposit);
    this.deliveries.push(deposit);
    const key = `${deposit.transactionHash}:${deposit.logIndex}`;
    if (this.keys.has(key)) return;
    this.keys.add(key);
    this.credited.push(deposit);
  }
}

export class InMemoryWatcherCheckpoint implements WatcherCheckpoint {
  constructor(public block: number | null = null) {}

  async load(): Promise<number | null> {
    return this.block;
  }

  async save(blockNumber: number): Promise<void> {
    this.block = blockNumber;
  }
}

export class InMemoryPayoutJournal implements PayoutJournal {
  readonly entries = new Map<string, JournaledPayout>();

  async find(withdrawalId: string): Promise<JournaledPayout | null> {
    return this.entries.get(withdrawalId) ?? null;
  }

  async save(entry: JournaledPayout): Promise<void> {
    this.entries.set(entry.withdrawalId, { ...entry });
  }
}
