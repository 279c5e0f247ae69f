import { describeWhenConfigured } from '@cip/shared/testing';
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { migrate, type Migration } from './postgres-migrations';

describeWhenConfigured('DATABASE_URL', 'PostgreSQL schema migrations', (url) => {
  jest.setTimeout(30_000);
  const schema = `cip_migrations_${randomBytes(6).toString('hex')}`;
  const pools: Pool[] = [];
  const open = () => {
    const pool = new Pool({ connectionString: url, max: 2, options: `-c search_path=${schema}` });
    pools.push(pool);
    return pool;
  };
  // Steps without IF NOT EXISTS: one applied twice fails.
  const first: Migration = { version: 1, description: 'widgets', sql: 'CREATE TABLE widgets (id text)' };
  const second: Migration = {
    version: 2,
    description: 'widgets.colour',
    sql: 'ALTER TABLE widgets ADD COLUMN colour text; CREATE INDEX widgets_colour ON widgets (colour)',
  };
  const applied = async (component: string) =>
    (
      await pools[0].query<{ version: number }>(
        'SELECT version FROM schema_migrations WHERE component = $1 ORDER BY version',
        [component],
      )
    ).rows.map((row) => row.version);

  beforeAll(async () => {
    await open().query(`CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    await pools[0].query(`DROP SCHEMA ${schema} CASCADE`);
    await Promise.all(pools.map((pool) => pool.end()));
  });

  it('applies each step once when several processes start at once, and again nothing on the next start', async () => {
    const starting = Array.from({ length: 4 }, () => open());
    await Promise.all(starting.map((pool) => migrate(pool, 'widgets', [first, second])));
    expect(await applied('widgets')).toEqual([1, 2]);
    await migrate(open(), 'widgets', [second, first]);
    expect(await applied('widgets')).toEqual([1, 2]);
    await pools[0].query(`INSERT INTO widgets (id, colour) VALUES ('w-1', 'red')`);
  });

  it('applies only the new step of a later release, and lets an earlier release start on the newer schema', async () => {
    const third: Migration = {
      version: 3,
      description: 'gadgets',
      sql: 'CREATE TABLE gadgets (id text)',
    };
    await migrate(open(), 'widgets', [first, second, third]);
    expect(await applied('widgets')).toEqual([1, 2, 3]);
    // Expand, then contract: the previous release still runs beside the new one during a rolling deploy.
    await expect(migrate(open(), 'widgets', [first, second])).resolves.toEqual([]);
    expect((await pools[0].query('SELECT id, colour FROM widgets')).rows).toEqual([
      { id: 'w-1', colour: 'red' },
    ]);
  });

  it('keeps components apart, and leaves no trace of a step that failed', async () => {
    const broken: Migration = {
      version: 1,
      description: 'half a step',
      sql: 'CREATE TABLE sprockets (id text); SELECT no_such_function()',
    };
    await expect(migrate(open(), 'sprockets', [broken])).rejects.toThrow(
      'Migration sprockets v1 (half a step) failed',
    );
    expect(await applied('sprockets')).toEqual([]);
    expect((await pools[0].query(`SELECT to_regclass('sprockets') AS table`)).rows[0].table).toBeNull();
    expect(await applied('widgets')).toEqual([1, 2, 3]);
    // The lock was given back: the fixed step applies.
    await migrate(open(), 'sprockets', [{ ...broken, sql: 'CREATE TABLE sprockets (id text)' }]);
    expect(await applied('sprockets')).toEqual([1]);
  });
});
