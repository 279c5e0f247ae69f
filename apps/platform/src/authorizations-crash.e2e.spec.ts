import { authorizationIdOf } from '@cip/authorizations/service';
import { READ_MODELS } from '@cip/platform/registry';
import { openEmbeddedInfrastructure, verifyProjections } from '@cip/shared/infrastructure';
import { F, IsoMessage, IsoServer } from '@cip/shared/iso8583';
import { deadline, waitFor } from '@cip/shared/testing';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discardPlatform, fundedCardholder, jsonCaller, startDurablePlatform } from './testing/kill-nine';
import { panOnRevealPage, revealOverHttp } from './testing/reveal-page';
import { exited, freePort } from '@cip/platform/topologies';

const KEY = 'sk_sandbox_authzCrashKeyEEEEEEEEEEEEEEEEEEEEEEEEEE';
const ACQUIRER = '87654321';

describe('durability: kill -9 in the middle of an authorization storm on the ISO 8583 link', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-crash-authz-'));
  let child: ChildProcess | undefined;
  const network = new IsoServer({ requestTimeoutMs: 20_000 });

  afterAll(async () => {
    await discardPlatform(child, dataDir);
    await network.close();
  });

  it('keeps the hold of every 00-approved authorization and the count of its spend limit; the wallet projection equals a rebuild', async () => {
    const networkPort = await network.listen(0);
    const env = { CARD_NETWORK_ISO_ADDRESS: `127.0.0.1:${networkPort}` };
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const call = jsonCaller(base, KEY);
    const linkUp = (what: string) =>
      waitFor(() => [...network.connections].some((connection) => connection.isOpen), { what });
    child = await startDurablePlatform(dataDir, port, KEY, env);

    const { walletId, card } = await fundedCardholder(call, 'authz-crash@example.com', 1000);
    const cardId = card.id as string;
    const expiry = `${String(card.expYear).slice(2)}${String(card.expMonth).padStart(2, '0')}`;
    // The PAN as the reveal page shows it (the network knows it; the test plays the network).
    const link = await call('POST', `/v1/cards/${cardId}/reveal`);
    const pan = panOnRevealPage((await revealOverHttp(link.body.url as string, base)).html) as string;
    expect(pan).toMatch(/^\d{16}$/);
    await linkUp('the issuer connected to the network');
    // A limit over the card's whole life, reached only after the restart: the payments approved before the
    // kill must count toward it, and concurrent ones must not pass it together.
    const LIMIT = 200;
    const limits = await call('PUT', `/v1/cards/${cardId}/spending-controls`, {
      limits: [{ amount: LIMIT, interval: 'all_time' }],
    });
    expect(limits.status).toBe(200);

    let stan = 0;
    const message = (mti: string, s: string, rrn: string) =>
      new IsoMessage(mti, {
        [F.PAN]: pan,
        [F.PROCESSING_CODE]: '000000',
        [F.AMOUNT_TRANSACTION]: '000000000100',
        [F.TRANSMISSION_DATE_TIME]: '1123100000',
        [F.STAN]: s,
        [F.EXPIRY]: expiry,
        [F.MCC]: '5812',
        [F.ACQUIRING_INSTITUTION_ID]: ACQUIRER,
        [F.RRN]: rrn,
        [F.CARD_ACCEPTOR_NAME_LOCATION]: `${'STORM SHOP'.padEnd(25)}${'LYON'.padEnd(13)}FR`,
        [F.CURRENCY_TRANSACTION]: '840',
        [F.ADVICE_REASON]: mti === '0420' ? 'REVERSAL:timeout' : undefined,
      });

    const approved: string[] = [];
    const unanswered: string[] = [];
    let killed = false;
    const inTime = deadline({ what: '150 approved authorizations to kill the platform on' });
    const worker = async () => {
      while (!killed) {
        inTime();
        const s = String(++stan).padStart(6, '0');
        const rrn = `332800${s}`;
        try {
          const response = await network.request(message('0100', s, rrn));
          if (response.get(F.RESPONSE_CODE) === '00') approved.push(rrn);
        } catch {
          unanswered.push(rrn); // the issuer is gone: it may have held, or not; the acquirer reverses
          return;
        }
        if (approved.length >= 150 && !killed) {
          killed = true;
          child!.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await exited(child!);
    expect(child!.signalCode).toBe('SIGKILL');

    child = await startDurablePlatform(dataDir, port, KEY, env);
    await linkUp('the issuer reconnected after the restart');
    // The acquirer reverses what got no answer (0420, REVERSAL:timeout): a hold the issuer placed before
    // dying without recording its decision is released; one it recorded is reversed.
    for (const rrn of unanswered) {
      const s = String(++stan).padStart(6, '0');
      expect((await network.request(message('0420', s, rrn))).get(F.RESPONSE_CODE)).toBe('00');
    }
    // A second storm up to the limit: each sender stops at its first 61 (exceeds the limit).
    const declined: string[] = [];
    const untilLimit = async () => {
      for (;;) {
        const s = String(++stan).padStart(6, '0');
        const rrn = `332800${s}`;
        const code = (await network.request(message('0100', s, rrn))).get(F.RESPONSE_CODE);
        if (code === '00') approved.push(rrn);
        else return declined.push(code as string);
      }
    };
    await Promise.all(Array.from({ length: 16 }, untilLimit));
    expect(new Set(declined)).toEqual(new Set(['61']));
    expect(approved).toHaveLength(LIMIT);

    for (const rrn of approved) {
      const id = authorizationIdOf('sandbox', { acquirerId: ACQUIRER, rrn });
      const authorization = await call('GET', `/v1/authorizations/${id}`);
      expect(authorization).toMatchObject({ status: 200, body: { status: 'confirmed', amount: 1 } });
    }
    const confirmed: number[] = [];
    for (let fromPage = 0; ; fromPage++) {
      const listed = await call('GET', `/v1/authorizations?cardId=${cardId}&limit=100&fromPage=${fromPage}`);
      const items = listed.body.items as { status: string; amount: number }[];
      confirmed.push(...items.filter((a) => a.status === 'confirmed').map((a) => a.amount));
      if (!listed.body.hasMore) break;
    }
    // What got no answer was reversed: the approved ones are all that is confirmed, exactly the limit.
    expect(confirmed).toHaveLength(LIMIT);
    const wallet = await call('GET', `/v1/wallets/${walletId}`);
    const held = (wallet.body.balance as number) - (wallet.body.availableBalance as number);
    expect(wallet.body.balance).toBe(1000);
    expect(Math.round(held * 100)).toBe(confirmed.length * 100);

    child.kill('SIGTERM');
    await exited(child);
    const infrastructure = openEmbeddedInfrastructure({ dataDir });
    try {
      const differences = await verifyProjections(infrastructure.scope('sandbox'), READ_MODELS);
      expect(differences.map((d) => d.collection)).toEqual(
        expect.arrayContaining(['wallets', 'authorizations']),
      );
      expect(differences.filter((d) => d.missing.length + d.extra.length + d.different.length > 0)).toEqual(
        [],
      );
    } finally {
      await infrastructure.close();
    }
  }, 120_000);
});
