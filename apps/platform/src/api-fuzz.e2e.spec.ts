import { PLATFORM_SERVICES } from '@cip/platform/registry';
import { API_ERROR_STATUS, ApiErrorCode } from '@cip/shared/contracts';
import { ConsumerHost, INFRASTRUCTURE, Infrastructure, StoreScope } from '@cip/shared/infrastructure';
import { DeliveryEngine } from '@cip/webhooks/service';
import { casesFor, FuzzRequest, KnownValues } from './testing/fuzz/fuzz-cases';
import { FuzzOperation, operationsOf } from './testing/fuzz/openapi-operations';
import { RawResponse, sendRaw } from './testing/fuzz/raw-http';
import { openSplitInfrastructure } from './testing/split-engines';
import { Harness, newUserBody, SANDBOX_KEY, startHarness } from './testing/platform-harness';
import { waitFor, WebhookReceiver } from '@cip/shared/testing';
import { webhookSettler } from './testing/webhook-settle';

/**
 * Every operation of the served OpenAPI document, fed wrong types, missing and extra fields, hostile text,
 * extreme numbers, absurd query values and ids, odd content types and encodings, and broken framing. New
 * endpoints are covered as soon as the document lists them. Set FUZZ_SEED to explore other draws; a failure
 * names its operation and case, and the same seed sends the same bytes again.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 10);
/**
 * Bound of one request: past it, the request hung. Answers take about 100 ms; a fresh-clone CI run once saw
 * one of 8,942 (a 100k-item body) pass 10 s on a machine loaded by another spec file and a build, and that
 * request answered in about 100 ms in every run since: the bound is for a hang, never for speed.
 */
const ANSWER_WITHIN_MS = 30_000;
const SCOPES: StoreScope[] = ['control', 'sandbox', 'production'];
/** Deletions last, so the other operations meet the setup's resources still alive. */
const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const seedOf = (label: string) =>
  [...label].reduce((hash, c) => (Math.imul(hash, 31) + c.charCodeAt(0)) >>> 0, SEED);

/** Everything wrong with an error answer, against the error body of docs/API-DECISIONS.md. */
function errorShapeProblems(response: RawResponse): string[] {
  let body: { error?: { code?: unknown; message?: unknown; details?: unknown }; requestId?: unknown };
  try {
    body = JSON.parse(response.body);
  } catch {
    return [`a ${response.status} whose body is not JSON: ${JSON.stringify(response.body.slice(0, 120))}`];
  }
  const problems: string[] = [];
  const code = body?.error?.code;
  if (typeof code !== 'string' || API_ERROR_STATUS[code as ApiErrorCode] !== response.status) {
    problems.push(`a ${response.status} with error code ${JSON.stringify(code)}`);
  }
  if (typeof body?.error?.message !== 'string' || !body.error.message) problems.push('no error message');
  if (typeof body?.requestId !== 'string' || !body.requestId) problems.push('no requestId');
  const details = body?.error?.details;
  if (
    details !== undefined &&
    !(
      Array.isArray(details) &&
      details.every((d) => typeof d?.field === 'string' && typeof d?.message === 'string')
    )
  ) {
    problems.push(`details not a list of {field, message}: ${JSON.stringify(details).slice(0, 120)}`);
  }
  return problems;
}

function namesField(response: RawResponse, field: string): boolean {
  const details = (JSON.parse(response.body) as { error: { details?: { field: string }[] } }).error.details;
  return (details ?? []).some(
    (d) => d.field === field || d.field.startsWith(`${field}.`) || d.field.startsWith(`${field}[`),
  );
}

describe('the API under schema-driven fuzzing', () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  let port: number;
  let operations: FuzzOperation[];
  let known: KnownValues;

  /**
   * The platform's stores, whose log heads say whether a request changed anything: in process on the
   * one-process platform; on the split topology, DATA_DIR's stores opened here as the CLI opens them (the
   * services append to the same files).
   */
  let stores: Infrastructure;
  const heads = () => Promise.all(SCOPES.map((scope) => stores.scope(scope).eventStore.headPosition()));
  /**
   * What the request `requestId` appended to any scope's log after the heads `before`: every event of a
   * command carries its request's id as correlation id. A refused request must have appended nothing; the
   * accepted ones before it may still be causing appends (consumers, sagas), which carry other ids. Without
   * an id (no answer, or one without the header) anything appended since counts.
   */
  const appendedBy = async (requestId: string | undefined, before: number[]) =>
    (
      await Promise.all(
        SCOPES.map((scope, i) =>
          stores.scope(scope).eventStore.readAll({ after: before[i], maxCount: 10_000 }),
        ),
      )
    )
      .flat()
      .filter((event) => !requestId || event.metadata.correlationId === requestId);
  const settler = webhookSettler(() => h);

  /** Waits until nothing the accepted requests caused is still under way (consumers, sagas, deliveries). */
  const settle = async () => {
    for (let round = 0; round < 50; round++) {
      const before = await heads();
      if (h.topology === 'one-process') {
        for (const scope of ['sandbox', 'production'] as const)
          await h.platform.app.get(ConsumerHost).drain(scope);
        await h.platform.app.get(DeliveryEngine).idle();
        if ((await heads()).join() === before.join()) return;
        continue;
      }
      // Split (no handle on the services' consumers): a sentinel's Event has gone through the dispatcher,
      // which reads the log in order, and no delivery is due (webhookSettler); settled once nothing but the
      // sentinel's request (its user and the email's reservation: one correlation id) was appended meanwhile.
      const marker = await settler.settle(SANDBOX_KEY);
      const appended = (
        await Promise.all(
          SCOPES.map((scope, i) =>
            stores.scope(scope).eventStore.readAll({ after: before[i], maxCount: 1_000 }),
          ),
        )
      ).flat();
      const request = appended.find((event) => event.streamId === marker)?.metadata.correlationId;
      if (request && appended.every((event) => event.metadata.correlationId === request)) return;
    }
    throw new Error('the platform kept appending events after 50 rounds of draining its consumers');
  };

  const api = (method: 'get' | 'post' | 'put', path: string, body?: object) =>
    h.http[method](path).set({ 'x-api-key': SANDBOX_KEY, 'content-type': 'application/json' }).send(body);

  beforeAll(async () => {
    h = await startHarness({
      allowPrivateWebhookUrls: true,
      // Incomplete requests are cut off after these, so they cost the campaign seconds, not minutes.
      httpTimeouts: { headersMs: 1_000, requestMs: 2_000 },
    });
    stores =
      h.topology === 'split'
        ? await openSplitInfrastructure(h.dataDir)
        : h.platform.app.get<Infrastructure>(INFRASTRUCTURE);
    // The API's port: the one-process platform's, or the gateway's on the split topology.
    port = Number(new URL(h.url).port);
    receiver = await new WebhookReceiver().start();

    const user = await api('post', '/v1/users', newUserBody());
    const kyc = await api('put', '/v1/kycs', { userId: user.body.id, type: 'full' });
    const subscription = await api('post', '/v1/webhook-subscriptions', { url: receiver.url });
    // A verified KYC activates the user, which provisions the wallet.
    await api('post', `/v1/simulate/kyc/${kyc.body.id}/complete`);
    await api('post', `/v1/simulate/kyc/${kyc.body.id}/approve`);
    await settle();
    const wallet = (await api('get', `/v1/wallets?userId=${user.body.id}`)).body.items[0];
    await api('post', '/v1/simulate/deposit', { walletId: wallet.id, amount: 100 });
    await settle();
    const transaction = (await api('get', `/v1/transactions?walletId=${wallet.id}`)).body.items[0];
    const card = await api('post', '/v1/cards', { userId: user.body.id, type: 'virtual' });
    await settle();
    const event = (await api('get', '/v1/events')).body.items[0];
    known = {
      userId: user.body.id,
      kycId: kyc.body.id,
      walletId: wallet.id,
      transactionId: transaction.id,
      subscriptionId: subscription.body.id,
      cardId: card.body.id,
      eventId: event.eventId,
      url: receiver.url,
    };
    for (const [name, value] of Object.entries(known)) {
      if (typeof value !== 'string') throw new Error(`setup did not create a resource for ${name}`);
    }

    const document = (await h.http.get('/v1/openapi.json')).body;
    operations = operationsOf(document).sort(
      (a, b) => METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method),
    );
  }, 240_000);

  afterAll(async () => {
    await receiver?.stop();
    await settler.stop();
    if (h?.topology === 'split') await stores?.close();
    await h?.close();
  });

  it('reads every operation of the served document', () => {
    expect(operations.length).toBeGreaterThanOrEqual(25);
    expect(operations.filter((o) => o.body).length).toBeGreaterThanOrEqual(8);
  });

  it('answers every malformed request with a 4xx in the error shape, in time, and changes nothing', async () => {
    const failures: string[] = [];
    const incomplete: { operation: FuzzOperation; request: FuzzRequest }[] = [];
    let sent = 0;
    const fail = (operation: FuzzOperation, request: FuzzRequest, problem: string) =>
      failures.push(`${operation.label} | ${request.name}: ${problem}`);

    const check = (operation: FuzzOperation, request: FuzzRequest, response: RawResponse) => {
      if (response.status === 0) {
        if (!request.incomplete) fail(operation, request, 'the connection closed without an answer');
        return;
      }
      if (response.status >= 500) {
        fail(operation, request, `${response.status} ${response.body.slice(0, 200)}`);
        return;
      }
      if (response.status >= 400) {
        for (const problem of errorShapeProblems(response)) fail(operation, request, problem);
      }
      if (request.mustReject && response.status < 400)
        fail(operation, request, `accepted (${response.status})`);
      // A value refused for what it is must be refused by validation, before any rule of the service runs.
      if (request.mustReject && request.field && response.status > 400) {
        fail(operation, request, `a ${response.status}, not a 400 naming ${request.field}`);
      }
      if (request.field && response.status === 400 && !errorShapeProblems(response).length) {
        if (!namesField(response, request.field)) {
          fail(
            operation,
            request,
            `a 400 that does not name ${request.field}: ${response.body.slice(0, 200)}`,
          );
        }
      }
    };

    for (const operation of operations) {
      for (const request of casesFor(operation, known, seedOf(operation.label))) {
        request.headers = { 'x-api-key': SANDBOX_KEY, ...request.headers };
        if (request.incomplete) {
          incomplete.push({ operation, request });
          continue;
        }
        const before = await heads();
        sent++;
        let response: RawResponse;
        try {
          response = await sendRaw(port, request, ANSWER_WITHIN_MS);
        } catch (error) {
          fail(operation, request, (error as Error).message);
          continue;
        }
        check(operation, request, response);
        if (response.status >= 400) {
          const appended = await appendedBy(response.headers['x-request-id'], before);
          if (appended.length) {
            fail(
              operation,
              request,
              `rejected (${response.status}) but it appended ${appended.map((e) => e.type).join(', ')}`,
            );
          }
        }
      }
    }

    // Incomplete bodies all wait for the server's request timeout: sent together, they cost it once. They
    // have no answer to name them: the log must not move at all while they are in, once the accepted requests'
    // consequences (consumers, sagas, deliveries) are over.
    await settle();
    const before = await heads();
    await Promise.all(
      incomplete.map(async ({ operation, request }) => {
        sent++;
        try {
          check(operation, request, await sendRaw(port, request, ANSWER_WITHIN_MS));
        } catch (error) {
          fail(operation, request, (error as Error).message);
        }
      }),
    );
    const after = await heads();
    if (after.join() !== before.join())
      failures.push(`incomplete requests moved the event log from ${before} to ${after}`);

    // No request took a process down: each process hosting the API's services is ready again (its stores,
    // consumer groups and the services it calls answer): one address on the one-process platform.
    const processes = [...new Set([h.url, ...PLATFORM_SERVICES.map(({ name }) => h.systemUrl(name))])];
    await waitFor(
      async () =>
        (await Promise.all(processes.map(async (url) => (await fetch(`${url}/health`)).status))).every(
          (status) => status === 200,
        ),
      { what: 'every process ready (/health 200) after the campaign' },
    );

    expect({ seed: SEED, sent, failures }).toEqual({ seed: SEED, sent, failures: [] });
  }, 600_000);
});
