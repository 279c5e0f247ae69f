import { BusConsumer, EventStore, ExpectedRevision, WrongExpectedRevisionError } from '@cip/shared/eventing';
import { createHash } from 'node:crypto';
import { Infrastructure } from '../infrastructure';
import { loadPersonalDataMasterKey, openEmbeddedInfrastructure } from '../embedded-infrastructure';

// ---------------------------------------------------------------------------------------------------
// One process of the embedded runtime sharing a DATA_DIR with others, for several-processes.e2e.spec.ts
// (forked with an IPC channel). Arguments: the data directory and the head watcher's interval (ms). Once
// loaded it reports `{ loaded }` and waits for the parent's `open`, sent to every process at once: then it
// loads the personal-data master key (the processes racing to create it on a fresh directory), opens the embedded infrastructure, reports `{ ready, masterKey }` (a hash of the key),
// then runs the parent's requests on the sandbox scope, one reply per request, until `close`.
// ---------------------------------------------------------------------------------------------------

type Request =
  | { id: number; op: 'race'; stream: string; appends: number; writer: string }
  | { id: number; op: 'consume'; group: string; topic: string }
  | { id: number; op: 'drain'; group: string }
  | { id: number; op: 'seen'; group: string }
  | { id: number; op: 'close' };

const event = (eventId: string) => ({
  type: 'Raced',
  data: {},
  metadata: { eventId, occurredAt: new Date().toISOString(), schemaVersion: 1 },
});

async function main(dataDir: string, pollIntervalMs: number): Promise<void> {
  const reply = (message: object) => process.send?.(message);
  // Node and the libs are loaded: the parent tells every process to open the files at once.
  const opening = new Promise((resolve) => process.once('message', resolve));
  reply({ loaded: true });
  await opening;
  const masterKey = createHash('sha256').update(loadPersonalDataMasterKey(dataDir)).digest('hex');
  const infrastructure = openEmbeddedInfrastructure({ dataDir, pollIntervalMs });
  const consumers = new Map<string, { consumer: BusConsumer; seen: string[] }>();
  process.on('message', (request: Request) => {
    void handle(infrastructure, consumers, request).then(
      (result) => reply({ id: request.id, result }),
      (error: unknown) => reply({ id: request.id, error: String(error) }),
    );
  });
  reply({ ready: true, masterKey });
}

async function handle(
  infrastructure: Infrastructure,
  consumers: Map<string, { consumer: BusConsumer; seen: string[] }>,
  request: Request,
): Promise<unknown> {
  const sandbox = infrastructure.scope('sandbox');
  switch (request.op) {
    case 'race':
      return race(sandbox.storedEventStore, request);
    case 'consume': {
      const seen: string[] = [];
      const consumer = await sandbox.bus.consume({
        groupId: request.group,
        topics: [request.topic],
        handle: async (messages) => void seen.push(...messages.map((m) => m.event.metadata.eventId)),
      });
      consumers.set(request.group, { consumer, seen });
      return null;
    }
    case 'drain': {
      const { consumer, seen } = consumers.get(request.group)!;
      await consumer.drain(5_000);
      return seen;
    }
    case 'seen':
      return consumers.get(request.group)!.seen;
    case 'close':
      await infrastructure.close();
      setImmediate(() => process.exit(0));
      return null;
  }
}

/**
 * Appends one event at a time to `stream`, each at the revision this writer last read: another writer
 * appending first makes it fail with a wrong expected revision, and it reads the stream again. Returns the
 * acknowledged appends (revision, position, event id) and how many lost a race.
 */
async function race(
  store: EventStore,
  request: { stream: string; appends: number; writer: string },
): Promise<{ acknowledged: { revision: number; position: number; eventId: string }[]; conflicts: number }> {
  const acknowledged: { revision: number; position: number; eventId: string }[] = [];
  let conflicts = 0;
  const lastRevision = async (): Promise<ExpectedRevision> => {
    const events = await store.readStream(request.stream);
    return events.length ? events[events.length - 1].revision : 'no_stream';
  };
  let expected = await lastRevision();
  while (acknowledged.length < request.appends) {
    const eventId = `${request.writer}-${acknowledged.length}`;
    try {
      const result = await store.append(request.stream, [event(eventId)], { expectedRevision: expected });
      acknowledged.push({ revision: result.nextRevision, position: result.position, eventId });
      expected = result.nextRevision;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      conflicts++;
      expected = await lastRevision();
    }
  }
  return { acknowledged, conflicts };
}

void main(process.argv[2], Number(process.argv[3])).catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
