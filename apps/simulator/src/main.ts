import 'reflect-metadata';
import { platformServiceApp } from '@cip/platform/composition';
import { runContextService } from '@cip/shared/transport';

/**
 * The simulator service: the sandbox's card network (the ISO 8583 server the issuer links to, on
 * SIMULATOR_ISO_PORT, default 8583), its acquirers and clearing files, and the sandbox 3DS server (AReqs to
 * THREE_DS_BASE_URL, else the gateway's ACS at GATEWAY_URL or PUBLIC_BASE_URL); the simulations' contracts
 * on SIMULATOR_TCP_PORT (4060). Journals under DATA_DIR/simulator.
 * The other services are reached at <SERVICE>_HOST:<SERVICE>_TCP_PORT; stores by STORE_DRIVER (embedded:
 * DATA_DIR; distributed: EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL); /health and /metrics on METRICS_PORT.
 * What it hosts and the options of its contexts: PLATFORM_SERVICES and `platformServiceApp`.
 */
runContextService(() => platformServiceApp('simulator'));
