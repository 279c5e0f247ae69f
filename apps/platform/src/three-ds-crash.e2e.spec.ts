import { waitFor } from '@cip/shared/testing';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvedUser, discardPlatform, jsonCaller, startDurablePlatform } from './testing/kill-nine';
import { panOnRevealPage, revealOverHttp } from './testing/reveal-page';
import { exited, freePort } from '@cip/platform/topologies';

const KEY = 'sk_sandbox_threeDsCrashKeyFFFFFFFFFFFFFFFFFFFFFFFFF';

/** A directory server of the test's own: keeps every RReq the ACS sends, answers its RRes. */
function directoryServer(): { server: Server; received: { at: number; body: Record<string, string> }[] } {
  const received: { at: number; body: Record<string, string> }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>;
      received.push({ at: Date.now(), body });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          messageType: 'RRes',
          messageVersion: '2.2.0',
          threeDSServerTransID: body.threeDSServerTransID,
          dsTransID: body.dsTransID,
          acsTransID: body.acsTransID,
          resultsStatus: '01',
        }),
      );
    });
  });
  return { server, received };
}

describe('durability: kill -9 during a pending 3DS challenge', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-crash-3ds-'));
  let child: ChildProcess | undefined;
  const ds = directoryServer();

  afterAll(async () => {
    await discardPlatform(child, dataDir);
    await new Promise((resolve) => ds.server.close(resolve));
  });

  it('still fails closed at the deadline after a restart, exactly once', async () => {
    await new Promise<void>((resolve) => ds.server.listen(0, '127.0.0.1', resolve));
    const dsURL = `http://127.0.0.1:${(ds.server.address() as AddressInfo).port}/rreq`;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const call = jsonCaller(base, KEY);
    child = await startDurablePlatform(dataDir, port, KEY);

    const userId = await approvedUser(call, 'three-ds-crash@example.com');
    await waitFor(
      async () => ((await call('GET', `/v1/wallets?userId=${userId}`)).body.items as unknown[]).length > 0,
      { what: 'the wallet of the user the approved KYC activated' },
    );
    const card = await call('POST', '/v1/cards', { userId, type: 'virtual' });
    expect(card).toMatchObject({ status: 201 });
    const cardId = card.body.id as string;
    const link = await call('POST', `/v1/cards/${cardId}/reveal`);
    const pan = panOnRevealPage((await revealOverHttp(link.body.url as string, base)).html) as string;
    expect(pan).toMatch(/^\d{16}$/);

    // The requestor waits at most one minute for the decoupled authentication: the challenge's deadline.
    const ares = await fetch(`${base}/3ds/acs/sandbox/areq`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        messageType: 'AReq',
        messageVersion: '2.2.0',
        messageCategory: '02',
        deviceChannel: '01',
        threeDSServerTransID: randomUUID(),
        dsTransID: randomUUID(),
        dsURL,
        dsReferenceNumber: 'DS-REF',
        threeDSServerRefNumber: '3DSS-REF',
        threeDSServerURL: 'https://3ds-server.example/notify',
        threeDSRequestorID: 'REQ-1',
        threeDSRequestorName: 'Crash Requestor',
        threeDSRequestorURL: 'https://merchant.example',
        acctNumber: pan,
        cardExpiryDate: `${String(card.body.expYear).slice(2)}${String(card.body.expMonth).padStart(2, '0')}`,
        threeDSRequestorDecReqInd: 'Y',
        threeDSRequestorDecMaxTime: '00001',
        sdkAppID: randomUUID(),
        sdkTransID: randomUUID(),
        sdkReferenceNumber: 'SDK',
        sdkMaxTimeout: '05',
        sdkEncData: 'x',
        sdkEphemPubKey: { kty: 'EC' },
        deviceRenderOptions: { sdkInterface: '03' },
      }),
    }).then((response) => response.json() as Promise<Record<string, string>>);
    expect(ares).toMatchObject({ messageType: 'ARes', transStatus: 'D' });
    const id = `tds-${ares.acsTransID}`;
    const pending = await call('GET', `/v1/3ds/${id}`);
    expect(pending.body).toMatchObject({ status: 'pending' });
    const expiresAt = Date.parse(pending.body.expiresAt as string);

    child.kill('SIGKILL');
    await exited(child);
    expect(child.signalCode).toBe('SIGKILL');
    child = await startDurablePlatform(dataDir, port, KEY);

    await waitFor(
      async () => {
        const after = await call('GET', `/v1/3ds/${id}`);
        return (after.body.result as { notifiedAt: string | null } | null)?.notifiedAt != null;
      },
      {
        what: 'the challenge expired and its RReq acknowledged after the restart',
        timeoutMs: 90_000,
        intervalMs: 200,
      },
    );
    const sent = ds.received.filter((rreq) => rreq.body.acsTransID === ares.acsTransID);
    expect(sent).toHaveLength(1);
    expect(sent[0].body).toMatchObject({ messageType: 'RReq', transStatus: 'N', transStatusReason: '14' });
    expect(sent[0].at).toBeGreaterThanOrEqual(expiresAt);
    const expired = await call('GET', `/v1/events?eventName=cardAuthentication.expired&limit=100`);
    expect(
      (expired.body.items as { eventTargetId: string }[]).filter((e) => e.eventTargetId === id),
    ).toHaveLength(1);
    expect((await call('POST', '/v1/3ds/accept', { cardAuthenticationId: id })).body).toMatchObject({
      error: { code: 'card_authentication_expired' },
    });
  }, 150_000);
});
