import 'reflect-metadata';
import { platformServiceApp } from '@cip/platform/composition';
import { runContextService } from '@cip/shared/transport';

/**
 * The authorizations service: the issuer, the ISO 8583 client of the card network at
 * CARD_NETWORK_ISO_ADDRESS (default: the simulator service, SIMULATOR_HOST:SIMULATOR_ISO_PORT), deciding
 * card payments on the wallet ledger; its contracts on AUTHORIZATIONS_TCP_PORT (4050).
 * The other services are reached at <SERVICE>_HOST:<SERVICE>_TCP_PORT; stores by STORE_DRIVER (embedded:
 * DATA_DIR; distributed: EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL); /health and /metrics on METRICS_PORT.
 * What it hosts and the options of its contexts: PLATFORM_SERVICES and `platformServiceApp`.
 */
runContextService(() => platformServiceApp('authorizations'));
