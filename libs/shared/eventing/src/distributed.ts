// Adapters of the distributed runtime, on their own entry point so that the embedded runtime never loads
// the EventStoreDB and Kafka clients.
export * from './esdb/esdb-event-store';
export * from './kafka/kafka-message-bus';
export * from './kafka/kafka-relay';
export * from './kafka/relay-watermark';
export * from './personal-data/mongo-personal-data-key-store';
export * from './postgres/postgres-event-store';
export * from './postgres/postgres-event-store-schema';
export * from './personal-data/postgres-key-store';
