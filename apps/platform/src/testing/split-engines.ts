import {
  type CardVault,
  cardVaultKeyVariables,
  openEmbeddedCardVault,
  openPostgresCardVault,
} from '@cip/cards/vault';
import { newPersonalDataMasterKey } from '@cip/shared/eventing';
import { type Infrastructure, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { openPostgresInfrastructure } from '@cip/shared/infrastructure/postgres';
import { AssignerProtocol, Kafka, logLevel } from 'kafkajs';
import { RelayWatermark } from '@cip/shared/eventing/distributed';
import { freshDatabase, waitFor } from '@cip/shared/testing';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a spec file's split topology on PostgreSQL and Kafka keeps of its own on the shared servers. */
interface SplitEngines {
  databaseUrl: string;
  topicPrefix: string;
  masterKey: string;
}

/** Kept beside the topology's other files: a harness started again on the data directory finds its data. */
const enginesFile = (dataDir: string) => join(dataDir, 'split-engines.json');

/**
 * The variables of a split topology on the servers of DATABASE_URL and KAFKA_BROKERS: a database of its own
 * (made on the first start of the data directory, found again on the next), a Kafka topic and group prefix
 * of its own, two partitions per topic (the suites share one small broker), and the master key the apps and
 * the CLI take from the environment on this driver.
 */
export async function splitEngineVariables(dataDir: string): Promise<NodeJS.ProcessEnv> {
  let engines = enginesOf(dataDir);
  if (!engines) {
    const database = await freshDatabase(requiredEnv('DATABASE_URL'), 'cip_e2e');
    engines = {
      databaseUrl: database.url,
      topicPrefix: `e2e-${randomBytes(4).toString('hex')}.`,
      masterKey: newPersonalDataMasterKey(),
    };
    writeFileSync(enginesFile(dataDir), JSON.stringify(engines), { mode: 0o600 });
  }
  return {
    ...splitEngineEnv(dataDir),
    // One connection per scope and process: each spec file's topology stays well under the cluster's
    // max_connections with another file's beside it (two Jest workers).
    DATABASE_POOL_SIZE: '1',
  };
}

/**
 * Removes what the data directory's topology made on the servers: its database and its topics. Run when a
 * spec file is done with its data directory (not between two starts on it).
 */
export async function dropSplitEngines(dataDir: string): Promise<void> {
  const engines = enginesOf(dataDir);
  if (!engines) return;
  const name = new URL(engines.databaseUrl).pathname.slice(1);
  const { Client } = await import('pg');
  const admin = new Client({ connectionString: requiredEnv('DATABASE_URL') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  const kafka = new Kafka({ brokers: requiredEnv('KAFKA_BROKERS').split(','), logLevel: logLevel.NOTHING });
  const admin2 = kafka.admin();
  await admin2.connect();
  try {
    const topics = (await admin2.listTopics()).filter((topic) => topic.startsWith(engines.topicPrefix));
    if (topics.length) await admin2.deleteTopics({ topics });
  } finally {
    await admin2.disconnect();
  }
}

const enginesOf = (dataDir: string): SplitEngines | null =>
  existsSync(enginesFile(dataDir))
    ? (JSON.parse(readFileSync(enginesFile(dataDir), 'utf8')) as SplitEngines)
    : null;

/**
 * What the CLI needs to run on a split topology's stores on PostgreSQL (as an operator of that deployment
 * sets it); nothing on the embedded stores (DATA_DIR is enough).
 */
export function splitEngineEnv(dataDir: string): NodeJS.ProcessEnv {
  const engines = enginesOf(dataDir);
  if (!engines) return {};
  return {
    STORE_DRIVER: 'postgres',
    DATABASE_URL: engines.databaseUrl,
    KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS'),
    KAFKA_TOPIC_PREFIX: engines.topicPrefix,
    KAFKA_PARTITIONS: '2',
    PERSONAL_DATA_MASTER_KEY: engines.masterKey,
  };
}

/**
 * The stores of a split topology's data directory opened by the test itself, as the CLI opens them: its
 * database and topics on PostgreSQL and Kafka, or the SQLite files under it. The caller closes them.
 */
export async function openSplitInfrastructure(dataDir: string): Promise<Infrastructure> {
  const engines = enginesOf(dataDir);
  if (!engines) return openEmbeddedInfrastructure({ dataDir });
  return openPostgresInfrastructure({
    databaseUrl: engines.databaseUrl,
    kafkaBrokers: requiredEnv('KAFKA_BROKERS').split(','),
    kafkaTopicPrefix: engines.topicPrefix,
    kafkaPartitions: 2,
    clientId: 'cip-e2e-test',
    poolSize: 1,
    // As the embedded one opened here: what the log holds sealed opens, nothing new is sealed.
    personalData: { masterKey: engines.masterKey, policies: [] },
  });
}

/** An environment's card vault of a split topology's data directory, opened by the test (closed by it). */
export async function openSplitCardVault(dataDir: string, environment: string): Promise<CardVault> {
  const engines = enginesOf(dataDir);
  if (!engines) return openEmbeddedCardVault({ dataDir, environment });
  const keys = cardVaultKeyVariables(dataDir, environment);
  const suffix = `_${environment.toUpperCase()}`;
  return openPostgresCardVault({
    databaseUrl: engines.databaseUrl,
    environment,
    poolSize: 1,
    configured: {
      keks: keys[`CARD_VAULT_KEKS${suffix}`],
      indexKey: keys[`CARD_VAULT_INDEX_KEY${suffix}`],
      cvk: keys[`CARD_VAULT_CVK${suffix}`],
      pvk: keys[`CARD_VAULT_PVK${suffix}`],
    },
  });
}

/**
 * Resolves once a consumer group of a split topology on Kafka has handled everything the scope's log held at
 * the call: the relay has produced the log up to its head (RelayWatermark), then, on every partition of every
 * topic the group's members are assigned, the group's committed offset (committed after the handler's effect)
 * is the partition's end. Twice: what the group's handlers appended in the meantime (a reaction) is waited
 * for too. Kafka keeps order per partition only, so a marker Event reaching a receiver says nothing of the
 * other partitions: this is the signal there. Nothing to wait for on the embedded stores.
 */
export async function waitForGroupCaughtUp(dataDir: string, group: string, scope = 'sandbox'): Promise<void> {
  const engines = enginesOf(dataDir);
  if (!engines) return;
  const infrastructure = await openSplitInfrastructure(dataDir);
  const kafka = new Kafka({ brokers: requiredEnv('KAFKA_BROKERS').split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `${engines.topicPrefix}${scope}.${group}`;
  const caughtUp = async (): Promise<boolean> => {
    const [description] = (await admin.describeGroups([groupId])).groups;
    if (!description || description.state !== 'Stable') return false;
    const topics = new Set<string>();
    for (const member of description.members) {
      const assignment = AssignerProtocol.MemberAssignment.decode(member.memberAssignment);
      for (const topic of Object.keys(assignment?.assignment ?? {})) topics.add(topic);
    }
    const committed = await admin.fetchOffsets({ groupId, topics: [...topics] });
    for (const { topic, partitions } of committed) {
      const ends = await admin.fetchTopicOffsets(topic);
      for (const { partition, high } of ends) {
        const offset = partitions.find((p) => p.partition === partition)?.offset ?? '-1';
        if (high !== '0' && offset !== high) return false;
      }
    }
    return true;
  };
  try {
    const store = infrastructure.scope(scope as 'sandbox').storedEventStore;
    for (let round = 0; round < 2; round++) {
      await new RelayWatermark(store).waitForRelay(Date.now() + 60_000);
      await waitFor(caughtUp, {
        what: `consumer group ${groupId} at the end of its partitions`,
        timeoutMs: 60_000,
        intervalMs: 100,
      });
    }
  } finally {
    await admin.disconnect();
    await infrastructure.close();
  }
}

/**
 * Where `needle` is stored in a split topology's database on PostgreSQL, as text (every row of every table of
 * the scopes', vaults' and staff schemas, read as its text form: JSON documents and events, sealed fields
 * as stored): `<schema>.<table>` once per table holding it. Null on the embedded stores (grep their files).
 */
export async function databaseTablesContaining(dataDir: string, needle: string): Promise<string[] | null> {
  const engines = enginesOf(dataDir);
  if (!engines) return null;
  const { Client } = await import('pg');
  const client = new Client({ connectionString: engines.databaseUrl });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
       WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    const holding: string[] = [];
    for (const { schema, name } of tables) {
      const table = `${client.escapeIdentifier(schema)}.${client.escapeIdentifier(name)}`;
      const { rows } = await client.query(`SELECT 1 FROM ${table} AS t WHERE t::text LIKE $1 LIMIT 1`, [
        `%${needle}%`,
      ]);
      if (rows.length) holding.push(`${schema}.${name}`);
    }
    return holding;
  } finally {
    await client.end();
  }
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set for the split topology on PostgreSQL and Kafka`);
  return value;
}
