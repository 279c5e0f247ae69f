import type { EmbeddedInfrastructureOptions } from './embedded-infrastructure';

/**
 * How often a service of the split topology looks for the other services' appends when nothing else made it
 * look (a commit of its own, a consumer's `drain` before a list: those read at once). The cost is the
 * idle process's: on this 2-core machine, with the consumers of a service on three scopes, about 1.2% of a
 * core at 50 ms, 1.8% at 25 ms, 0.6% at npm start's 200 ms (the checkpoint worker's share included). 50 ms
 * is the most a saga of one service waits for another's event; the dozen processes of the topology cost
 * about an eighth of a core idle.
 */
export const SPLIT_SERVICE_POLL_INTERVAL_MS = 50;

/**
 * The embedded options a process of the split topology opens its infrastructure with (the services, the
 * gateway and the dashboard share one DATA_DIR), besides its data directory, metrics and logger.
 */
export const embeddedServiceOptions = (): Pick<EmbeddedInfrastructureOptions, 'pollIntervalMs'> => ({
  pollIntervalMs: SPLIT_SERVICE_POLL_INTERVAL_MS,
});
