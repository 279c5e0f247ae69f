import { isKyc, kycDecider } from '@cip/kyc/domain';
import { loadState } from '@cip/shared/eventing';
import { environmentStores, openEmbeddedInfrastructure } from '@cip/shared/infrastructure';
import { publicBaseUrl, readPlatformConfig, systemClock } from '@cip/shared/runtime';
import { UsersService } from '@cip/users/service';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliCaptured } from './testing/run-cli-captured';
import { openKyc } from './commands/kyc';
import { NO_PROGRESS } from './progress';

describe('cli: kyc rfi and review', () => {
  let dataDir: string;
  const cliWith = (env: Record<string, string>, argv: string[]) =>
    runCliCaptured([...argv, '--data-dir', dataDir], { env });
  const cli = (...argv: string[]) => cliWith({ PUBLIC_BASE_URL: 'https://verify.example.com/' }, argv);

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'cip-cli-kyc-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it("raises an RFI on a distributor's user and prints the link the user answers through", async () => {
    const created = await cli('distributors', 'create', '--name', 'Acme', '--countries', 'FR', '--json');
    const distributorId = JSON.parse(created.stdout).distributorId as string;
    const infrastructure = openEmbeddedInfrastructure({ dataDir });
    try {
      const users = new UsersService(
        {
          ...environmentStores(infrastructure),
          settle: async () => undefined,
        },
        systemClock,
      );
      const user = await users.createUser(
        {
          distributorId,
          environment: 'sandbox',
          program: { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false },
          requestId: 't',
        },
        { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'FR' },
      );
      await infrastructure.close();

      const flags = [
        '--distributor',
        distributorId,
        '--env',
        'sandbox',
        '--subtype',
        'transaction_monitoring',
      ];
      const raised = await cli('kyc', 'rfi', user.id, ...flags, '--json');
      expect(raised).toMatchObject({ code: 0, stderr: '' });
      const kyc = JSON.parse(raised.stdout);
      expect(kyc).toMatchObject({
        userId: user.id,
        type: 'rfi',
        rfiSubtype: 'transaction_monitoring',
        status: 'pending',
        access: {
          url: expect.stringMatching(new RegExp(`^https://verify\\.example\\.com/hosted/kyc/${kyc.id}\\.`)),
        },
      });

      const reopened = openEmbeddedInfrastructure({ dataDir });
      const { state } = await loadState(reopened.scope('sandbox').eventStore, kycDecider, kyc.id);
      await reopened.close();
      expect(isKyc(state) && [state.status, state.distributorId]).toEqual(['pending', distributorId]);

      // An operator reviews: approving before the user answered is refused, declining is recorded.
      const review = (decision: string, ...extra: string[]) =>
        cli(
          'kyc',
          'review',
          kyc.id,
          '--distributor',
          distributorId,
          '--env',
          'sandbox',
          '--decision',
          decision,
          ...extra,
        );
      const early = await review('approve');
      expect(early.code).toBe(1);
      expect(early.stderr).toMatch(/cannot be approved/);
      const badCode = await review('decline', '--code', 'shoeSize');
      expect(badCode.code).toBe(2);
      // The user answers through the link, as on the hosted page.
      const answering = openEmbeddedInfrastructure({ dataDir });
      const service = await openKyc({
        dataDir,
        json: false,
        io: { out: async () => undefined, err: () => undefined, env: {} },
        infrastructure: () => answering,
        progress: () => NO_PROGRESS,
        publicBaseUrl: () => 'https://verify.example.com',
      });
      const token = new URL(kyc.access.url).pathname.split('/').pop()!;
      expect(
        await service.submitHostedForm(token, { explanation: 'Salary from Acme, payslips attached.' }),
      ).toEqual({
        submitted: true,
      });
      await answering.close();
      const declined = await review('decline', '--code', 'identity', '--json');
      expect(declined).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(declined.stdout)).toMatchObject({
        id: kyc.id,
        status: 'declined',
        declinedCode: 'identity',
      });

      const unknown = await cli('kyc', 'rfi', 'usr-00000000-0000-4000-8000-000000000000', ...flags);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/not found/);
      const otherTenant = await cli(
        'kyc',
        'rfi',
        user.id,
        '--distributor',
        'dst-nope',
        '--env',
        'sandbox',
        '--subtype',
        'onboarding',
      );
      expect(otherTenant.code).toBe(1);
    } finally {
      await infrastructure.close().catch(() => undefined);
    }
  });
  it('prints links at the address the platform would use with the same environment', async () => {
    const created = await cli('distributors', 'create', '--name', 'Acme', '--countries', 'FR', '--json');
    const distributorId = JSON.parse(created.stdout).distributorId as string;
    const environments: [Record<string, string>, string][] = [
      [{ PUBLIC_BASE_URL: 'https://cards.example.com/platform/' }, 'https://cards.example.com/platform'],
      [
        { PUBLIC_BASE_URL: 'https://cards.example.com', HOST: '127.0.0.1', PORT: '8080' },
        'https://cards.example.com',
      ],
      [{ HOST: '127.0.0.1', PORT: '4100' }, 'http://127.0.0.1:4100'],
      [{ HOST: '::1', PORT: '4100' }, 'http://[::1]:4100'],
      [{ HOST: '0.0.0.0', PORT: '8080' }, 'http://localhost:8080'],
      [{}, 'http://localhost:3000'],
    ];
    const infrastructure = openEmbeddedInfrastructure({ dataDir });
    const userIds: string[] = [];
    try {
      const users = new UsersService(
        { ...environmentStores(infrastructure), settle: async () => undefined },
        systemClock,
      );
      for (let i = 0; i < environments.length; i++) {
        const user = await users.createUser(
          {
            distributorId,
            environment: 'sandbox',
            program: { allowedCountries: ['FR'], b2b: false, prepaid: false, kycImportEnabled: false },
            requestId: 't',
          },
          { email: `user${i}@example.com`, firstName: 'Ada', lastName: 'Lovelace', countryOfResidence: 'FR' },
        );
        userIds.push(user.id);
      }
    } finally {
      await infrastructure.close();
    }

    for (const [i, [env, expected]] of environments.entries()) {
      const raised = await cliWith(env, [
        'kyc',
        'rfi',
        userIds[i],
        '--distributor',
        distributorId,
        '--env',
        'sandbox',
        '--subtype',
        'onboarding',
      ]);
      expect({ env, code: raised.code, stderr: raised.stderr }).toEqual({ env, code: 0, stderr: '' });
      const link = /link +(\S+)/.exec(raised.stdout)?.[1] ?? '';
      expect(link).toMatch(new RegExp(`^${expected.replace(/[.[\]]/g, '\\$&')}/hosted/kyc/kyc-`));
      // The platform started with this environment hands out links from the same function.
      expect(link.startsWith(`${publicBaseUrl(readPlatformConfig(env))}/hosted/kyc/`)).toBe(true);
    }
  });
});
