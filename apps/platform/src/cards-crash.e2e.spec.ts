import { deadline } from '@cip/shared/testing';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvedUser, discardPlatform, jsonCaller, startDurablePlatform } from './testing/kill-nine';
import { panOnRevealPage, revealOverHttp } from './testing/reveal-page';
import { exited, freePort } from '@cip/platform/topologies';

const KEY = 'sk_sandbox_cardsCrashKeyDDDDDDDDDDDDDDDDDDDDDDDDDD';

describe('durability: kill -9 in the middle of card creations (vault group commit, then the card event)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cip-crash-cards-'));
  let child: ChildProcess | undefined;

  afterAll(() => discardPlatform(child, dataDir));

  it('keeps every card acknowledged with a 201, and its PAN decrypts after the restart', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const call = jsonCaller(base, KEY);
    child = await startDurablePlatform(dataDir, port, KEY);

    // Four active users with their wallets, the cards spread over them.
    const userIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      const userId = await approvedUser(call, `cards-crash-${i}@example.com`);
      const wallets = await call('GET', `/v1/wallets?userId=${userId}`);
      expect(wallets.body.items).toEqual([expect.objectContaining({ status: 'active' })]);
      userIds.push(userId);
    }

    const acknowledged = new Map<string, string>(); // card id -> last4
    let sent = 0;
    let killed = false;
    const inTime = deadline({ what: '300 acknowledged card creations to kill the platform on' });
    const worker = async () => {
      while (!killed) {
        inTime();
        const userId = userIds[sent++ % userIds.length];
        try {
          const response = await call('POST', '/v1/cards', { userId, type: 'virtual' });
          if (response.status === 201) {
            acknowledged.set(response.body.id as string, response.body.last4 as string);
          }
        } catch {
          return; // the process is gone: a creation in flight may or may not be there; none was acknowledged
        }
        if (acknowledged.size >= 300 && !killed) {
          killed = true;
          child!.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    await exited(child);
    expect(child.signalCode).toBe('SIGKILL');

    child = await startDurablePlatform(dataDir, port, KEY);
    for (const [cardId, last4] of acknowledged) {
      const card = await call('GET', `/v1/cards/${cardId}`);
      expect(card).toMatchObject({ status: 200, body: { id: cardId, last4, status: 'active' } });
      // The PAN decrypts: the reveal page shows a number ending in the card's last four digits.
      const link = await call('POST', `/v1/cards/${cardId}/reveal`);
      expect(link.status).toBe(201);
      const page = await revealOverHttp(link.body.url as string, base);
      expect(page.status).toBe(200);
      const pan = panOnRevealPage(page.html);
      expect(pan).toMatch(new RegExp(`^40000099\\d{4}${last4}$`));
    }
    expect(acknowledged.size).toBeGreaterThanOrEqual(300);
  }, 120_000);
});
