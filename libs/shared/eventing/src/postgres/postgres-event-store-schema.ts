import type { Migration } from '@cip/shared/runtime';

/** The component name of the event store's migrations in `schema_migrations`. */
export const EVENT_STORE_COMPONENT = 'event-store';

/**
 * The key of the transaction-level advisory lock every append holds from before it reads the head to its
 * commit: positions are given in commit order (see PostgresEventStore). Any writer of `cip_events` takes it.
 */
export const APPEND_LOCK_KEY = 0x63_69_70_65; // 'cipe'

/**
 * Takes the append lock of the session's schema (its search_path's first): the scopes of one database
 * (`cip_control`, `cip_sandbox`, `cip_production`) each have their own log and their own lock, so the
 * environments' appends do not wait for each other. (Two schemas whose names hash alike would share one:
 * slower, never wrong.)
 */
export const TAKE_APPEND_LOCK = `SELECT pg_advisory_xact_lock(${APPEND_LOCK_KEY}, hashtext(current_schema()))`;

/** The channel commits are announced on (a wake-up only: the subscriptions also poll). */
export const EVENTS_CHANNEL = 'cip_events';

/**
 * The event store's schema, versioned. Released versions are never edited: a change is a new version, and
 * it expands before it contracts (see Migration): a new column has a default or is nullable, a
 * column the code stops reading is dropped only in a later release.
 */
export const EVENT_STORE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'the log of events',
    sql: `
      CREATE TABLE cip_events (
        -- Given under APPEND_LOCK_KEY as the head + 1, in commit order: dense, never reused.
        position    bigint      PRIMARY KEY,
        stream_id   text        NOT NULL,
        -- The part of the stream id before its first '-' (categoryOf): reads by category use its index.
        category    text        GENERATED ALWAYS AS (split_part(stream_id, '-', 1)) STORED,
        revision    integer     NOT NULL,
        event_id    text        NOT NULL,
        type        text        NOT NULL,
        data        jsonb       NOT NULL,
        metadata    jsonb       NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        -- Reads by stream (and its current revision: a backward scan of this index).
        CONSTRAINT cip_events_stream_revision UNIQUE (stream_id, revision),
        -- Appends are idempotent by event id: a replay is found here, never written twice.
        CONSTRAINT cip_events_event_id UNIQUE (event_id)
      );
      CREATE INDEX cip_events_category ON cip_events (category, position);
    `,
  },
];
