import 'reflect-metadata';
import { platformServiceApp } from '@cip/platform/composition';
import { runContextService } from '@cip/shared/transport';

/**
 * The 3-D Secure service: the issuer's access control server (AReq, challenges, RReq to the directory
 * server, authentication values) behind its contracts on THREE_DS_TCP_PORT (4090); the gateway serves
 * its HTTP endpoints. Challenge pages start with PUBLIC_BASE_URL.
 * The other services are reached at <SERVICE>_HOST:<SERVICE>_TCP_PORT; stores by STORE_DRIVER (embedded:
 * DATA_DIR; distributed: EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL); /health and /metrics on METRICS_PORT.
 * What it hosts and the options of its contexts: PLATFORM_SERVICES and `platformServiceApp`.
 */
runContextService(() => platformServiceApp('three-ds'));
