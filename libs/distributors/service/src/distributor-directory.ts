import { Environment } from '@cip/shared/contracts';
import { EventStore, LiveLogFold, RecordedEvent } from '@cip/shared/eventing';
import {
  distributorEvents,
  DistributorRecord,
  DistributorState,
  evolveDistributor,
  ProgramConfig,
} from '@cip/distributors/domain';
import { createHash, timingSafeEqual } from 'node:crypto';

/** Who is calling: resolved from an API key. */
export interface Principal {
  distributorId: string;
  environment: Environment;
  keyId: string;
  program: ProgramConfig;
}

export const hashApiKey = (apiKey: string): string => createHash('sha256').update(apiKey).digest('hex');

interface KeyEntry {
  keyId: string;
  distributorId: string;
  environment: Environment;
  hash: Buffer;
  active: boolean;
}

/**
 * The control plane as the gateway reads it: distributors, their programs and their API keys, folded in
 * memory from the control store (it is small) and kept live by a subscription (`LiveLogFold`). A key not
 * found triggers one catch-up read first, so a key created a moment ago by the CLI (another process) works
 * at once. With `readTailOnEachAuthentication` (the embedded store, where the subscription of another
 * process's appends polls the file: 200 ms), every authentication reads the log's tail first (one indexed
 * SQLite read, empty nearly always), so a key revoked or a program changed by another process (the operator
 * API in the dashboard process of the split topology, the CLI) applies to the very next call. Not on
 * EventStoreDB: its subscription pushes within milliseconds, and a read of `$all` from the control scope's
 * last position would scan every other scope's events since.
 */
export class DistributorDirectory extends LiveLogFold {
  private readonly distributors = new Map<string, DistributorState>();
  private readonly keysByHash = new Map<string, KeyEntry>();

  constructor(
    store: EventStore,
    private readonly options: { readTailOnEachAuthentication?: boolean } = {},
  ) {
    super(store);
  }

  protected fold(recorded: RecordedEvent): void {
    if (!recorded.streamId.startsWith('dst-')) return;
    const event = distributorEvents.read(recorded);
    const next = evolveDistributor(this.distributors.get(recorded.streamId) ?? { status: 'absent' }, event);
    this.distributors.set(recorded.streamId, next);
    if (event.type === 'ApiKeyIssued') {
      this.keysByHash.set(event.data.keyHash, {
        keyId: event.data.keyId,
        distributorId: event.data.distributorId,
        environment: event.data.environment,
        hash: Buffer.from(event.data.keyHash, 'hex'),
        active: true,
      });
    } else if (event.type === 'ApiKeyRevoked') {
      for (const entry of this.keysByHash.values()) {
        if (entry.keyId === event.data.keyId) entry.active = false;
      }
    }
  }

  /** The principal of an API key, or null when the key is unknown or revoked. */
  async authenticate(apiKey: string): Promise<Principal | null> {
    const hash = hashApiKey(apiKey);
    if (this.options.readTailOnEachAuthentication) await this.catchUp();
    let entry = this.keysByHash.get(hash);
    if (!entry) {
      await this.catchUp();
      entry = this.keysByHash.get(hash);
    }
    // The map lookup found a candidate by hash; the final comparison is constant-time all the same.
    if (!entry || !entry.active || !timingSafeEqual(entry.hash, Buffer.from(hash, 'hex'))) return null;
    const distributor = this.get(entry.distributorId);
    if (!distributor) return null;
    return {
      distributorId: entry.distributorId,
      environment: entry.environment,
      keyId: entry.keyId,
      program: distributor.program,
    };
  }

  get(distributorId: string): DistributorRecord | null {
    const state = this.distributors.get(distributorId);
    return state && state.status !== 'absent' ? state : null;
  }

  list(): DistributorRecord[] {
    return [...this.distributors.values()].filter(
      (d): d is DistributorRecord & { status: 'active' } => d.status !== 'absent',
    );
  }

  findDefault(): DistributorRecord | null {
    return this.list().find((d) => d.isDefault) ?? null;
  }
}
