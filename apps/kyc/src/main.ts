import 'reflect-metadata';
import { platformServiceApp } from '@cip/platform/composition';
import { runContextService } from '@cip/shared/transport';

/**
 * The KYC service: the kyc context (verifications, the sandbox provider's hosted pages, RFIs, link
 * expiry) behind its contracts on KYC_TCP_PORT (4020); hosted page links start with PUBLIC_BASE_URL.
 * The other services are reached at <SERVICE>_HOST:<SERVICE>_TCP_PORT; stores by STORE_DRIVER (embedded:
 * DATA_DIR; distributed: EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL); /health and /metrics on METRICS_PORT.
 * What it hosts and the options of its contexts: PLATFORM_SERVICES and `platformServiceApp`.
 */
runContextService(() => platformServiceApp('kyc'));
