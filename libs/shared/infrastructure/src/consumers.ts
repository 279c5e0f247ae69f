import type { BusConsumer, BusMessage } from '@cip/shared/eventing';
import type { Projection } from '@cip/shared/read-store';
import { ENVIRONMENTS } from '@cip/shared/contracts';
import type { Infrastructure, ScopePorts, StoreScope } from './infrastructure';
import { projectionReadModel, RebuildableReadModel } from './projections/verify-projections';

/**
 * A consumer of the log (projection, public-event recorder, saga, dispatcher). Each keeps its own
 * committed offset per scope and must be idempotent: a redelivered batch changes nothing twice.
 */
export interface ConsumerDefinition {
  /** Consumer group name, unique across the platform. */
  group: string;
  topics: string[];
  /** Scopes it runs in; both environments by default. */
  scopes?: StoreScope[];
  /**
   * Started by `startGroup` rather than with the others (an elected role's group: the webhook dispatcher's runs
   * only on the process that holds its lease); `stopGroup` stops it again.
   */
  elective?: boolean;
  /** Runs once per scope before its consumer starts (a read model's indexes). */
  prepare?(ports: ScopePorts): Promise<void>;
  handle(ports: ScopePorts, messages: BusMessage[]): Promise<void>;
}

/** The consumer group that keeps a read model's live collections current. */
export const readModelConsumer = (model: RebuildableReadModel): ConsumerDefinition => ({
  group: model.group,
  topics: model.topics,
  prepare: async (ports) => {
    for (const [collection, fields] of Object.entries(model.indexes ?? {})) {
      await ports.readStore.ensureIndexes(collection, fields);
    }
  },
  handle: (ports, messages) =>
    model.apply(
      ports.readStore,
      messages.map((m) => m.event),
      ports.eventStore,
    ),
});

/**
 * Holds every consumer definition registered by the context modules and runs them against the
 * infrastructure. Apps that should not consume (a pure HTTP gateway in the distributed runtime) just
 * never call `start`.
 */
const SETTLE_TIMEOUT_MS = 2_000;
/** A group whose handler failed this many times in a row on the same batch is reported failing (/health). */
const FAILING_AFTER_ATTEMPTS = 5;

/** How a consumer group of this process is doing, as /health reports it. */
export interface ConsumerGroupHealth {
  scope: StoreScope;
  group: string;
  /** `failing`: its handler keeps failing on the same batch; `stopped`: its bus stopped it on an error. */
  state: 'running' | 'failing' | 'stopped';
  /** Failed attempts in a row (0 once a batch succeeds). */
  consecutiveFailures: number;
}

interface RunningGroup {
  scope: StoreScope;
  group: string;
  consumer: BusConsumer;
  /** Updated by the handler wrapper of `start`. */
  failures: { consecutive: number };
}

export class ConsumerHost {
  private readonly definitions: ConsumerDefinition[] = [];
  private running: RunningGroup[] = [];
  /** What `start` was given, until `stop`: elective groups started later run on it. */
  private infrastructure: Infrastructure | null = null;
  /** The elective groups asked to run (they start with the others when asked before `start`). */
  private readonly wanted = new Set<string>();
  /** Starts and stops of each group, one after the other. */
  private readonly changes = new Map<string, Promise<void>>();

  register(definition: ConsumerDefinition): void {
    if (this.definitions.some((d) => d.group === definition.group)) {
      throw new Error(`Consumer group ${definition.group} is registered twice`);
    }
    this.definitions.push(definition);
  }

  registerReadModel(model: RebuildableReadModel): void {
    this.register(readModelConsumer(model));
  }

  registerProjection(projection: Projection): void {
    this.registerReadModel(projectionReadModel(projection));
  }

  listDefinitions(): ConsumerDefinition[] {
    return [...this.definitions];
  }

  async start(infrastructure: Infrastructure): Promise<void> {
    this.infrastructure = infrastructure;
    for (const definition of this.definitions) {
      if (definition.elective && !this.wanted.has(definition.group)) continue;
      await this.change(definition.group, () => this.launch(infrastructure, definition));
    }
  }

  /**
   * Starts an elective group (see `ConsumerDefinition.elective`) from its committed offsets, once this host
   * runs its consumers (at once if it does already); nothing if it runs.
   */
  async startGroup(group: string): Promise<void> {
    const definition = this.electiveDefinition(group);
    this.wanted.add(group);
    await this.change(group, async () => {
      if (this.infrastructure && this.wanted.has(group)) await this.launch(this.infrastructure, definition);
    });
  }

  /** Stops an elective group's consumers (a batch in hand finishes or is redelivered to the next runner). */
  async stopGroup(group: string): Promise<void> {
    this.electiveDefinition(group);
    this.wanted.delete(group);
    await this.change(group, async () => {
      const stopping = this.running.filter((r) => r.group === group);
      this.running = this.running.filter((r) => r.group !== group);
      await Promise.all(stopping.map((r) => r.consumer.stop()));
    });
  }

  private electiveDefinition(group: string): ConsumerDefinition {
    const definition = this.definitions.find((d) => d.group === group);
    if (!definition?.elective) throw new Error(`Consumer group ${group} is not registered as elective`);
    return definition;
  }

  private change(group: string, step: () => Promise<void>): Promise<void> {
    const next = (this.changes.get(group) ?? Promise.resolve()).then(step);
    this.changes.set(
      group,
      next.catch(() => undefined),
    );
    return next;
  }

  private async launch(infrastructure: Infrastructure, definition: ConsumerDefinition): Promise<void> {
    if (this.running.some((r) => r.group === definition.group)) return;
    for (const scope of definition.scopes ?? ENVIRONMENTS) {
      const ports = infrastructure.scope(scope);
      await definition.prepare?.(ports);
      // The buses retry a failing handler on the same messages; counting here sees every bus alike.
      const failures = { consecutive: 0 };
      const consumer = await ports.bus.consume({
        groupId: definition.group,
        topics: definition.topics,
        // The bus carries events as the log stores them: personal data sealed, opened here for every
        // consumer (the relay and exports never open it).
        handle: async (messages) => {
          // Opened once for every group (`shared`): the groups are given the same stored events.
          const events = await ports.personalData.open(
            messages.map((m) => m.event),
            { shared: true },
          );
          try {
            await definition.handle(
              ports,
              messages.map((m, i) => ({ ...m, event: events[i] })),
            );
          } catch (error) {
            failures.consecutive++;
            throw error;
          }
          failures.consecutive = 0;
        },
      });
      this.running.push({ scope, group: definition.group, consumer, failures });
    }
  }

  /**
   * Waits until the given groups (all by default) of a scope have processed everything appended before
   * the call: read-your-writes for list endpoints, and a signal for tests instead of sleeps.
   */
  async drain(scope: StoreScope, groups?: string[], timeoutMs?: number): Promise<void> {
    await Promise.all(
      this.running
        .filter((r) => r.scope === scope && (!groups || groups.includes(r.group)))
        .map((r) => r.consumer.drain(timeoutMs)),
    );
  }

  /** Every consumer group this process runs, and whether it keeps up (readiness). */
  health(): ConsumerGroupHealth[] {
    return this.running.map(({ scope, group, consumer, failures }) => ({
      scope,
      group,
      state:
        consumer.failure?.() !== undefined
          ? 'stopped'
          : failures.consecutive >= FAILING_AFTER_ATTEMPTS
            ? 'failing'
            : 'running',
      consecutiveFailures: failures.consecutive,
    }));
  }

  /** Whether `group` runs in this process for `scope` (started, not stopped). */
  runs(scope: StoreScope, group: string): boolean {
    return this.running.some((r) => r.scope === scope && r.group === group);
  }

  /**
   * Read-your-writes for list endpoints: waits until the groups have processed what was appended before
   * the call, at most 2 s per stage, and never fails (a late read model still answers, a little behind).
   * Stages run one after the other, for groups that consume what earlier ones append (a saga, then the
   * projections of what it wrote).
   */
  async settle(scope: StoreScope, ...stages: string[][]): Promise<void> {
    try {
      for (const groups of stages) await this.drain(scope, groups, SETTLE_TIMEOUT_MS);
    } catch {
      // Served as is: the caller's own write is in the log, the list shows it once the group catches up.
    }
  }

  /** `settle` bound to its stages: the read-your-writes wait a context service is given for its lists. */
  settler(...stages: string[][]): (scope: StoreScope) => Promise<void> {
    return (scope) => this.settle(scope, ...stages);
  }

  async stop(): Promise<void> {
    this.infrastructure = null;
    const running = this.running;
    this.running = [];
    await Promise.all(running.map((r) => r.consumer.stop()));
  }
}
