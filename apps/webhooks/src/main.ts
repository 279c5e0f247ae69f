import 'reflect-metadata';
import { platformServiceApp } from '@cip/platform/composition';
import { runContextService } from '@cip/shared/transport';

/**
 * The webhooks dispatcher: the webhooks context (subscriptions, signed deliveries) and the events
 * context, which records the public Events of every context (GET /v1/events) that the dispatcher delivers;
 * their contracts on WEBHOOKS_TCP_PORT (4070).
 * The other services are reached at <SERVICE>_HOST:<SERVICE>_TCP_PORT; stores by STORE_DRIVER (embedded:
 * DATA_DIR; distributed: EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL); /health and /metrics on METRICS_PORT.
 * What it hosts and the options of its contexts: PLATFORM_SERVICES and `platformServiceApp`.
 */
runContextService(() => platformServiceApp('webhooks'));
