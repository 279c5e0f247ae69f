import 'reflect-metadata';
import { platformServiceApp } from '@cip/platform/composition';
import { runContextService } from '@cip/shared/transport';

/**
 * The cards service: the cards context (issuing, lifecycle, the card vault, reveal links) behind its
 * contracts on CARDS_TCP_PORT (4030); the vault is SQLite under DATA_DIR (embedded) or MongoDB with every
 * CARD_VAULT_*_<ENV> key configured (distributed); reveal links start with PUBLIC_BASE_URL.
 * The other services are reached at <SERVICE>_HOST:<SERVICE>_TCP_PORT; stores by STORE_DRIVER (embedded:
 * DATA_DIR; distributed: EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL); /health and /metrics on METRICS_PORT.
 * What it hosts and the options of its contexts: PLATFORM_SERVICES and `platformServiceApp`.
 */
runContextService(() => platformServiceApp('cards'));
