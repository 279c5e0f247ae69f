import type { EventStore } from '@cip/shared/eventing';
import {
  KafkaMessageBus,
  KafkaRelay,
  RELAY_CHECKPOINT_STREAM,
  RelayWatermark,
} from '@cip/shared/eventing/distributed';
import type { Logger, PlatformMetrics } from '@cip/shared/runtime';
import { Kafka, logLevel } from 'kafkajs';
import type { logCreator } from 'kafkajs';
import type { Infrastructure, StoreScope } from '../infrastructure';

/**
 * The Kafka half of both server drivers (EventStoreDB + MongoDB, and PostgreSQL): one client per process,
 * one bus per scope (topics and groups `<prefix><scope>.`), and in the relay process one relay per scope
 * from the scope's event store to its bus. Only the event store under them differs.
 */
export interface KafkaTransportOptions {
  kafkaBrokers: string[];
  /** Kafka client id of this process. */
  clientId: string;
  /** Partitions of the topics the buses create (default 6). */
  kafkaPartitions?: number;
  /**
   * Put before every scope's topic and group prefix (`<prefix><scope>.`): deployments (or test suites) that
   * share one Kafka cluster keep apart. Default none.
   */
  kafkaTopicPrefix?: string;
  logger?: Logger;
  metrics?: PlatformMetrics;
}

export function openKafka(options: KafkaTransportOptions): Kafka {
  return new Kafka({
    clientId: options.clientId,
    brokers: options.kafkaBrokers,
    logLevel: logLevel.WARN,
    ...(options.logger && { logCreator: kafkaLogCreator(options.logger) }),
  });
}

/**
 * A scope's bus. Read-your-writes: a drain (a list's settle) first waits for the relay to have produced the
 * log up to its head (RelayWatermark over `storedEventStore`'s checkpoints), then for the partition ends.
 */
export function scopeBus(
  kafka: Kafka,
  scope: StoreScope,
  storedEventStore: EventStore,
  options: KafkaTransportOptions,
): KafkaMessageBus {
  const { logger, metrics } = options;
  const busName = `kafka:${scope}`;
  const watermark = new RelayWatermark(storedEventStore, RELAY_CHECKPOINT_STREAM);
  return new KafkaMessageBus({
    kafka,
    awaitPublished: (deadline) => watermark.waitForRelay(deadline),
    topicPrefix: `${options.kafkaTopicPrefix ?? ''}${scope}.`,
    clientId: `${options.clientId}:${scope}`,
    partitions: options.kafkaPartitions,
    observer: {
      onHandlerError: (group, error, attempt) => {
        metrics?.consumerErrors.inc({ store: busName, group });
        logger?.error({ err: error, group, attempt, store: busName }, 'consumer handler failed; retrying');
      },
      onProgress: (group, lag) => metrics?.consumerLag.set({ store: busName, group }, lag),
      onConsumerCrash: (group, error, restart) =>
        logger?.error(
          { err: error, group, restart, store: busName },
          restart ? 'consumer crashed; kafkajs restarts it' : 'consumer crashed and stays stopped',
        ),
    },
  });
}

/** An infrastructure on servers: its logs reach Kafka through relays, which the relay process alone starts. */
export interface ServerInfrastructure extends Infrastructure {
  /**
   * Starts one relay per scope, from the scope's log to its Kafka topics. One process of the deployment runs
   * them (the relay); a second one would stop on its first checkpoint, and until then produce every event
   * twice.
   */
  startRelays(): Promise<KafkaRelay[]>;
}

/** What a relay needs of a scope: the log as stored (personal data sealed) and the scope's bus. */
export interface RelayedScope {
  scope: StoreScope;
  storedEventStore: EventStore;
  bus: KafkaMessageBus;
}

/**
 * Starts one relay per scope (in the order given), each from its scope's stored log to its bus; stops those
 * already started if one fails to start.
 */
export async function startScopeRelays(
  scopes: readonly RelayedScope[],
  logger?: Logger,
): Promise<KafkaRelay[]> {
  const relays: KafkaRelay[] = [];
  try {
    for (const { scope, storedEventStore, bus } of scopes) {
      const relay = new KafkaRelay({
        store: storedEventStore,
        bus,
        checkpointStream: RELAY_CHECKPOINT_STREAM,
        onRetry: (error, attempt) =>
          logger?.warn({ err: error, attempt, scope }, 'relay could not produce or checkpoint; retrying'),
        onError: (error) => logger?.error({ err: error, scope }, 'relay stopped'),
      });
      await relay.start();
      relays.push(relay);
    }
  } catch (error) {
    for (const relay of relays) await relay.stop();
    throw error;
  }
  return relays;
}

/** kafkajs logs through the process's structured logger instead of its own console format. */
function kafkaLogCreator(logger: Logger): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _timestamp, logger: _logger, ...fields } = log;
      const entry = { ...fields, namespace, component: 'kafkajs' };
      if (level === logLevel.ERROR) logger.error(entry, message);
      else if (level === logLevel.WARN) logger.warn(entry, message);
      else if (level === logLevel.INFO) logger.info(entry, message);
      else logger.debug(entry, message);
    };
}
