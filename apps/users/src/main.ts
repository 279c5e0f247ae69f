import 'reflect-metadata';
import { eventsContext } from '@cip/events/service';
import { runContextService } from '@cip/shared/transport';
import { usersContext } from '@cip/users/service';

/**
 * The users service: the users context behind its contracts' message handlers (USERS_TCP_PORT), recording
 * the users' public Events since it owns those streams. Stores: EVENTSTORE_URL, KAFKA_BROKERS, MONGO_URL.
 */
runContextService({
  name: 'users',
  contexts: [usersContext, eventsContext],
  tcpPort: { env: 'USERS_TCP_PORT', default: 4010 },
});
