import 'reflect-metadata';
import { platformServiceApp } from '@cip/platform/composition';
import { runContextService } from '@cip/shared/transport';

/**
 * The users service: the users context (onboarding, statuses, erasure) behind its contracts on
 * USERS_TCP_PORT (4010), its projections running.
 * The other services are reached at <SERVICE>_HOST:<SERVICE>_TCP_PORT; stores by STORE_DRIVER (embedded:
 * DATA_DIR; distributed: EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL); /health and /metrics on METRICS_PORT.
 * What it hosts and the options of its contexts: PLATFORM_SERVICES and `platformServiceApp`.
 */
runContextService(() => platformServiceApp('users'));
