import { DistributorDirectory } from '@cip/distributors/service';
import { EmbeddedMessageBus } from '@cip/shared/eventing';
import { environmentStores, Infrastructure, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { systemClock } from '@cip/shared/runtime';
import { UsersService } from '@cip/users/service';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CapturedRun, runCliCaptured } from './testing/run-cli-captured';

type Run = CapturedRun;

describe('cli', () => {
  let dataDir: string;

  /** Runs a command line as given (no --data-dir added), with `io` overriding the environment and terminal. */
  const runWith = runCliCaptured;

  const cli = (...argv: string[]): Promise<Run> => runWith([...argv, '--data-dir', dataDir]);

  const cliJson = async <T>(...argv: string[]): Promise<T> => {
    const run = await cli(...argv, '--json');
    expect(run).toMatchObject({ code: 0 });
    return JSON.parse(run.stdout) as T;
  };

  /** Opens the data directory beside the CLI, as the running platform would. */
  const withInfrastructure = async <T>(use: (infrastructure: Infrastructure) => Promise<T>): Promise<T> => {
    const infrastructure = openEmbeddedInfrastructure({ dataDir });
    try {
      return await use(infrastructure);
    } finally {
      await infrastructure.close();
    }
  };

  const authenticate = (apiKey: string) =>
    withInfrastructure(async (infrastructure) => {
      const directory = new DistributorDirectory(infrastructure.scope('control').eventStore);
      return directory.authenticate(apiKey);
    });

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-cli-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a distributor and manages its keys, never showing a stored key or its hash', async () => {
    const distributor = await cliJson<{ distributorId: string; program: Record<string, unknown> }>(
      'distributors',
      'create',
      '--name',
      'Acme',
      '--countries',
      'fr,DE',
      '--b2b',
    );
    expect(distributor.program).toEqual({
      allowedCountries: ['FR', 'DE'],
      b2b: true,
      prepaid: false,
      kycImportEnabled: false,
    });
    const configured = await cliJson<{ program: Record<string, unknown> }>(
      'distributors',
      'configure',
      distributor.distributorId,
      '--prepaid',
      'true',
    );
    expect(configured.program).toMatchObject({ b2b: true, prepaid: true });

    const created = await cli(
      'keys',
      'create',
      '--distributor',
      distributor.distributorId,
      '--env',
      'sandbox',
    );
    expect(created.code).toBe(0);
    const first = /sk_sandbox_\w+/.exec(created.stdout)?.[0] ?? '';
    expect(first).not.toBe('');
    expect(created.stderr).toContain('shown once');
    const production = await cli(
      'keys',
      'create',
      '--distributor',
      distributor.distributorId,
      '--env',
      'production',
    );
    expect(production.stderr).toMatch(/PRODUCTION key is shown once/);

    const listed = await cli('keys', 'list', '--distributor', distributor.distributorId);
    const listedJson = await cliJson<Record<string, unknown>[]>(
      'keys',
      'list',
      '--distributor',
      distributor.distributorId,
    );
    expect(listedJson).toHaveLength(2);
    expect(listedJson[0]).toMatchObject({ environment: 'sandbox', last4: first.slice(-4), status: 'active' });
    expect(listedJson[0]).not.toHaveProperty('keyHash');
    const firstPrincipal = await authenticate(first);
    expect(firstPrincipal).toMatchObject({
      distributorId: distributor.distributorId,
      environment: 'sandbox',
    });
    const hash = (await withInfrastructure((i) => i.scope('control').eventStore.readAll())).find(
      (e) => e.type === 'ApiKeyIssued',
    )?.data.keyHash as string;
    for (const output of [listed.stdout, JSON.stringify(listedJson)]) {
      expect(output).toContain(firstPrincipal?.keyId);
      expect(output).not.toContain(first);
      expect(output).not.toContain(hash);
    }

    const rolled = await cliJson<{ keyId: string; replacedKeyId: string; apiKey: string }>(
      'keys',
      'roll',
      firstPrincipal?.keyId ?? '',
    );
    expect(rolled.replacedKeyId).toBe(firstPrincipal?.keyId);
    expect(await authenticate(first)).toBeNull();
    expect(await authenticate(rolled.apiKey)).toMatchObject({ keyId: rolled.keyId, environment: 'sandbox' });

    expect(await cli('keys', 'delete', rolled.keyId)).toMatchObject({ code: 0 });
    expect(await authenticate(rolled.apiKey)).toBeNull();
    const statuses = await cliJson<{ keyId: string; status: string }[]>(
      'keys',
      'list',
      '--distributor',
      distributor.distributorId,
    );
    expect(statuses.find((k) => k.keyId === rolled.keyId)?.status).toBe('revoked');

    const distributors = await cliJson<{ distributorId: string }[]>('distributors', 'list');
    expect(distributors.map((d) => d.distributorId)).toEqual([distributor.distributorId]);
  });

  it('exports the log and a stream as NDJSON, one recorded event per line', async () => {
    const { distributorId } = await cliJson<{ distributorId: string }>(
      'distributors',
      'create',
      '--name',
      'Acme',
    );
    await cli('keys', 'create', '--distributor', distributorId, '--env', 'sandbox');

    const log = await cli('export', 'log', '--env', 'control');
    expect(log.code).toBe(0);
    const events = log.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual(['DistributorCreated', 'ApiKeyIssued']);
    for (const event of events) {
      expect(Object.keys(event)).toEqual(['streamId', 'revision', 'position', 'type', 'data', 'metadata']);
    }
    const fromSecond = await cli('export', 'log', '--env', 'control', '--from', String(events[1].position));
    expect(
      fromSecond.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).type),
    ).toEqual(['ApiKeyIssued']);

    const stream = await cli('export', 'stream', distributorId, '--env', 'control');
    expect(stream.stdout).toBe(log.stdout);
    expect(await cli('export', 'log', '--env', 'sandbox')).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('verifies the read models against the log and reports the ids that differ', async () => {
    const userIds = await withInfrastructure(async (infrastructure) => {
      const users = new UsersService(
        {
          ...environmentStores(infrastructure),
          settle: async () => undefined,
        },
        systemClock,
      );
      const caller = {
        distributorId: 'dst-test',
        environment: 'sandbox' as const,
        program: { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false },
        requestId: 'test',
      };
      const ids: string[] = [];
      for (const name of ['ada', 'bob', 'cyd']) {
        const user = await users.createUser(caller, {
          email: `${name}@example.com`,
          firstName: name,
          lastName: 'Test',
          countryOfResidence: 'FR',
        });
        ids.push(user.id);
      }
      return ids;
    });

    // Nothing has consumed the log yet: every document is missing.
    const stale = await cli('projections', 'verify', '--env', 'sandbox');
    expect(stale.code).toBe(1);
    for (const id of userIds) expect(stale.stdout).toMatch(new RegExp(`missing +${id}`));

    const rebuilt = await cli('projections', 'rebuild', 'all', '--env', 'sandbox');
    expect(rebuilt.code).toBe(0);
    await withInfrastructure(async (infrastructure) => {
      const { eventStore, bus } = infrastructure.scope('sandbox');
      const head = await eventStore.headPosition();
      // The platform resumes after the rebuilt position instead of re-applying the whole log.
      expect((bus as EmbeddedMessageBus).committedOffset('projection.users')).toBe(head);
      expect((bus as EmbeddedMessageBus).committedOffset('public-events')).toBe(head);
    });
    const verified = await cliJson<{ ok: boolean; collections: { collection: string; total: number }[] }>(
      'projections',
      'verify',
      '--env',
      'sandbox',
    );
    expect(verified.ok).toBe(true);
    expect(verified.collections.find((c) => c.collection === 'users')?.total).toBe(3);
    expect(verified.collections.find((c) => c.collection === 'events')?.total).toBe(3);

    await withInfrastructure(async (infrastructure) => {
      const { readStore } = infrastructure.scope('sandbox');
      const stored = await readStore.getVersioned('users', userIds[1]);
      if (!stored?.doc) throw new Error('user document not projected');
      await readStore.upsertMany('users', [
        { id: userIds[1], version: stored.version + 1, doc: { ...stored.doc, firstName: 'corrupted' } },
      ]);
    });
    const corrupted = await cli('projections', 'verify', '--env', 'sandbox');
    expect(corrupted.code).toBe(1);
    expect(corrupted.stdout).toMatch(new RegExp(`different +${userIds[1]}`));
    expect(corrupted.stdout).toContain('users / users: 1 difference(s) among 3 documents');
    expect(corrupted.stdout).toContain('public-events / events: ok (3 documents)');
    // The scratch collections of the verification are gone.
    await withInfrastructure(async (infrastructure) => {
      expect(await infrastructure.scope('sandbox').readStore.all('users__verify')).toEqual([]);
    });
  });

  it('refuses to rebuild while a platform runs on the data directory, not when its pid file is stale', async () => {
    writeFileSync(join(dataDir, 'platform.pid'), `${process.pid}\n`);
    const refused = await cli('projections', 'rebuild', 'users', '--env', 'sandbox');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`The platform is running on ${dataDir} (pid ${process.pid})`);

    const exited = spawnSync(process.execPath, ['-e', '']);
    writeFileSync(join(dataDir, 'platform.pid'), `${exited.pid}\n`);
    expect(await cli('projections', 'rebuild', 'users', '--env', 'sandbox')).toMatchObject({ code: 0 });
  });

  it('refuses a wrong command line with exit code 2, the reason and the help on stderr, and domain errors with 1', async () => {
    const cases: [string[], string, string][] = [
      [
        ['keys', 'frobnicate'],
        "error: unknown command 'frobnicate'",
        'Usage: npm run cli -- keys [options] [command]',
      ],
      [
        ['kyes', 'list'],
        "error: unknown command 'kyes'\n(Did you mean keys?)",
        'Usage: npm run cli -- [options] [command]',
      ],
      [['keys', 'lst', '--distributor', 'dst-x'], '(Did you mean list?)', 'Usage: npm run cli -- keys'],
      [
        ['keys', 'create', '--distributor', 'dst-x', '--env', 'sandbox', '--lable', 'ci'],
        "error: unknown option '--lable'\n(Did you mean --label?)",
        'Usage: npm run cli -- keys create [options]',
      ],
      [
        ['keys', 'list', '--distributor', 'dst-x', '--colour', 'red'],
        "error: unknown option '--colour'",
        'keys list',
      ],
      [
        ['keys', 'create', '--distributor', 'dst-x', '--env', 'staging'],
        "argument 'staging' is invalid. Allowed choices are sandbox, production.",
        'keys create',
      ],
      [
        ['keys', 'create', '--env', 'sandbox'],
        "error: required option '--distributor <distributorId>' not specified",
        'keys create',
      ],
      [
        ['distributors', 'configure', 'dst-x', '--b2b', 'maybe'],
        "argument 'maybe' is invalid. Takes true or false.",
        'distributors configure',
      ],
      [['distributors', 'configure', 'dst-x'], 'error: Nothing to configure', 'distributors configure'],
      [
        ['distributors', 'create', '--name', 'Acme', '--countries', 'France'],
        'Takes ISO 3166-1 alpha-2 codes',
        'distributors create',
      ],
      [['keys', 'roll'], "error: missing required argument 'keyId'", 'keys roll'],
      [['keys', 'roll', 'key-a', 'key-b'], "error: too many arguments for 'roll'", 'keys roll'],
      [
        ['export', 'log', '--env', 'control', '--from', 'first'],
        "argument 'first' is invalid. Takes a whole number.",
        'export log',
      ],
      [
        ['projections', 'rebuild', 'usrs', '--env', 'sandbox'],
        'Allowed choices are users,',
        'projections rebuild',
      ],
      [['keys'], 'Commands:', 'Usage: npm run cli -- keys [options] [command]'],
      [[], 'Commands:', 'Usage: npm run cli -- [options] [command]'],
    ];
    for (const [argv, reason, help] of cases) {
      const run = await cli(...argv);
      expect({ argv, ...run }).toMatchObject({ argv, code: 2, stdout: '' });
      expect(run.stderr).toContain(reason);
      expect(run.stderr).toContain(help);
    }
    // Nothing was written by any of them.
    expect(await withInfrastructure((i) => i.scope('control').eventStore.readAll())).toEqual([]);
    const missing = await cli('keys', 'delete', 'key-unknown');
    expect(missing).toEqual({ code: 1, stdout: '', stderr: 'error: API key key-unknown was not found\n' });
  });

  it('prints the help of every group and command, with examples, and the version', async () => {
    const paths: string[][] = [[]];
    const commandsOf = (help: string) =>
      [...(help.split('\nCommands:\n')[1] ?? '').matchAll(/^ {2}([a-z][\w-]*)/gm)]
        .map(([, name]) => name)
        .filter((name) => name !== 'help');
    let checked = 0;
    while (paths.length) {
      const path = paths.shift()!;
      const run = await cli(...path, '--help');
      expect({ path, code: run.code, stderr: run.stderr }).toEqual({ path, code: 0, stderr: '' });
      expect(run.stdout).toContain(`Usage: npm run cli -- ${path.map((p) => `${p} `).join('')}`);
      const subcommands = commandsOf(run.stdout);
      if (subcommands.length === 0) {
        // A command: its description, its options and how to use it.
        expect(run.stdout).toMatch(/^Usage: .*\n\n\S.*\n/);
        expect(run.stdout).toContain('Global Options:\n');
        expect(run.stdout).toContain(`Examples:\n  $ npm run cli -- ${path.join(' ')}`);
        checked++;
      }
      paths.push(...subcommands.map((name) => [...path, name]));
    }
    expect(checked).toBeGreaterThanOrEqual(17);
    expect(await cli('help', 'keys')).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('roll <keyId>'),
    });

    const { version } = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8'));
    expect(await cli('--version')).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
  it('refuses a data directory that does not exist, from --data-dir or DATA_DIR, and never creates it', async () => {
    const absent = join(dataDir, 'typo');
    const commands = [
      ['distributors', 'list'],
      ['distributors', 'create', '--name', 'Acme'],
      ['export', 'log', '--env', 'control'],
      ['projections', 'verify', '--env', 'sandbox'],
      ['webhooks', 'rotate-signing-key', '--env', 'sandbox'],
      ['kyc', 'rfi', 'usr-x', '--distributor', 'dst-x', '--env', 'sandbox', '--subtype', 'onboarding'],
      ['wallets', 'retry-provisioning', 'usr-x', '--env', 'sandbox'],
    ];
    for (const argv of commands) {
      for (const run of [
        await runWith([...argv, '--data-dir', absent]),
        await runWith(argv, { env: { DATA_DIR: absent } }),
      ]) {
        expect({ argv, ...run }).toMatchObject({ argv, code: 2, stdout: '' });
        expect(run.stderr).toMatch(
          new RegExp(`^error: Data directory ${absent} \\((--data-dir|DATA_DIR)\\) does not exist\\.`),
        );
        expect(run.stderr).toContain('the CLI never creates one');
      }
      expect(existsSync(absent)).toBe(false);
    }
    writeFileSync(absent, '');
    const notADirectory = await runWith(['distributors', 'list', '--data-dir', absent]);
    expect(notADirectory).toMatchObject({ code: 2, stdout: '' });
    expect(notADirectory.stderr).toContain(`Data directory ${absent} (--data-dir) is not a directory`);
    // Commands that never touch the data directory still run.
    expect(await runWith(['projections', 'list', '--data-dir', join(dataDir, 'absent')])).toMatchObject({
      code: 0,
    });
  });

  it('reports progress of exports, rebuilds and verifications on stderr, only on a terminal or with --progress', async () => {
    await withInfrastructure(async (infrastructure) => {
      const { eventStore } = infrastructure.scope('sandbox');
      for (let batch = 0; batch < 3; batch++) {
        await eventStore.append(
          `note-${batch}`,
          Array.from({ length: 500 }, (_, i) => ({
            type: 'NoteTaken',
            data: { i },
            metadata: {
              eventId: `evt-${batch}-${i}`,
              occurredAt: new Date(0).toISOString(),
              schemaVersion: 1,
            },
          })),
        );
      }
    });
    // Every progress line is due: each reading of the clock is a second after the previous one.
    let clock = 0;
    const ticking = () => (clock += 1000);

    const exported = await runWith(
      ['export', 'log', '--env', 'sandbox', '--data-dir', dataDir, '--progress'],
      {
        now: ticking,
      },
    );
    expect(exported.code).toBe(0);
    const lines = exported.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1500);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('type', 'NoteTaken');
    expect(exported.stderr).toBe(
      'export log (sandbox): 1000 events, position 1000 of 1500\n' +
        'export log (sandbox): 1500 events, position 1500 of 1500\n' +
        'export log (sandbox): 1500 events exported, up to position 1500\n',
    );

    const onTerminal = await runWith(
      ['export', 'stream', 'note-1', '--env', 'sandbox', '--data-dir', dataDir],
      {
        errIsTerminal: true,
      },
    );
    expect(onTerminal.stdout.trimEnd().split('\n')).toHaveLength(500);
    expect(onTerminal.stderr).toBe('export stream note-1 (sandbox): 500 events exported\n');
    for (const quiet of [
      await runWith(['export', 'log', '--env', 'sandbox', '--data-dir', dataDir]),
      await runWith(['export', 'log', '--env', 'sandbox', '--data-dir', dataDir, '--no-progress'], {
        errIsTerminal: true,
      }),
    ]) {
      expect(quiet).toEqual({ code: 0, stdout: exported.stdout, stderr: '' });
    }

    const rebuilt = await runWith(
      ['projections', 'rebuild', 'users', '--env', 'sandbox', '--data-dir', dataDir],
      {
        errIsTerminal: true,
        now: ticking,
      },
    );
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stderr).toBe(
      'projections rebuild (sandbox): users: position 1500 of 1500 (1500 events read)\n' +
        'projections rebuild (sandbox): 1 read model(s) replayed, the log read up to position 1500\n',
    );
    expect(rebuilt.stdout).toMatch(/^Rebuilt users \(users\) in sandbox up to position 1500\n/);

    const verified = await runWith([
      'projections',
      'verify',
      '--env',
      'sandbox',
      '--data-dir',
      dataDir,
      '--progress',
      '--json',
    ]);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true });
    expect(verified.stderr).toMatch(/read model\(s\) replayed, the log read up to position 1500\n$/);
  });
});
