import { waitFor, WebhookReceiver } from '@cip/shared/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { issuerLinked } from './testing/cardholders';
import { Harness, SANDBOX_KEY, startHarness } from './testing/platform-harness';

// docs/QUICKSTART.md is true: every request of its ```bash blocks, in order, against a fresh platform, each
// answering the status the page states, each captured field present for the requests after it. The format
// the page is written in is described at its end ("The format the test reads"); a line outside it fails.

const QUICKSTART = join(__dirname, '..', '..', '..', 'docs', 'QUICKSTART.md');

/** One request of the page, as written (variables not yet filled). */
interface QuickstartRequest {
  /** Where it is in the page, for failure messages: `docs/QUICKSTART.md:<line>`. */
  at: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  headers: [string, string][];
  body: string | null;
  status: number;
  /** `NAME=$(curl ... | jq -r <filter>`: the variable and the path of the answer's field it takes. */
  capture: { name: string; path: (string | number)[] } | null;
}

/** The variables the reader sets; the test sets its own. */
const READER_VARIABLES = ['API', 'KEY', 'WEBHOOK_URL'];

/** Splits a jq path (`.authorization.id`, `.items[0].id`) into its keys and indexes. */
function jqPath(filter: string, at: string): (string | number)[] {
  const unquoted = filter.replace(/^'(.*)'$/, '$1');
  if (!/^(\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])+$/.test(unquoted))
    throw new Error(`${at}: a capture takes a jq path such as .id or '.items[0].id', not ${filter}`);
  return [...unquoted.matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g)].map((m) =>
    m[1] !== undefined ? m[1] : Number(m[2]),
  );
}

/** Reads the page's requests; throws on any line of a ```bash block outside the documented format. */
function parseQuickstart(markdown: string): QuickstartRequest[] {
  const lines = markdown.split('\n');
  const requests: QuickstartRequest[] = [];
  let inBash = false;
  let expected: number | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const at = `docs/QUICKSTART.md:${i + 1}`;
    if (!inBash) {
      if (line.trim() === '```bash') inBash = true;
      continue;
    }
    if (line.trim() === '```') {
      if (expected !== null) throw new Error(`${at}: "# expect ${expected}" with no request after it`);
      inBash = false;
      continue;
    }
    const expect = /^# expect (\d{3})$/.exec(line.trim());
    if (expect) {
      expected = Number(expect[1]);
      continue;
    }
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const assignment = /^([A-Z_]+)=(?!\$\()/.exec(line);
    if (assignment) {
      if (!READER_VARIABLES.includes(assignment[1]))
        throw new Error(`${at}: only ${READER_VARIABLES.join(', ')} are set by hand`);
      continue;
    }
    const curl = /^(?:([A-Z][A-Z0-9_]*)=\$\()?curl -s (.*)$/.exec(line);
    if (!curl) throw new Error(`${at}: not a request, a comment or a variable: ${line}`);
    if (expected === null) throw new Error(`${at}: a request without "# expect <status>" before it`);
    const [, name, rest] = curl;
    const heredoc = rest.includes('-d @- <<JSON');
    let command = rest;
    if (name && !heredoc) {
      if (!command.endsWith(')')) throw new Error(`${at}: the capture's $( is not closed on its line`);
      command = command.slice(0, -1);
    }
    const [request, jq] = command.split(/ \| jq /);
    const method = /-X (GET|POST|PUT|DELETE)\b/.exec(request)?.[1] ?? 'GET';
    const url = /"\$API(\/[^"]*)"/.exec(request);
    if (!url) throw new Error(`${at}: the URL must be "$API/<path>"`);
    const headers = [...request.matchAll(/-H (?:"([^"]*)"|'([^']*)')/g)].map((m) => {
      const [header, ...value] = (m[1] ?? m[2]).split(':');
      return [header.trim(), value.join(':').trim()] as [string, string];
    });
    let body: string | null = null;
    if (heredoc) {
      const bodyLines: string[] = [];
      while (lines[++i] !== 'JSON') {
        if (i >= lines.length) throw new Error(`${at}: the body's <<JSON is not closed by a JSON line`);
        bodyLines.push(lines[i]);
      }
      body = bodyLines.join('\n');
      if (name && lines[++i] !== ')') throw new Error(`${at}: the capture's $( is not closed by a ) line`);
    }
    let capture: QuickstartRequest['capture'] = null;
    if (name) {
      const filter = /^-r (\S+)$/.exec(jq?.trim() ?? '');
      if (!filter) throw new Error(`${at}: a capture ends with | jq -r <path>`);
      capture = { name, path: jqPath(filter[1], at) };
    }
    requests.push({
      at,
      method: method as QuickstartRequest['method'],
      path: url[1],
      headers,
      body,
      status: expected,
      capture,
    });
    expected = null;
  }
  if (inBash) throw new Error('docs/QUICKSTART.md: a ```bash block is not closed');
  return requests;
}

/** `$NAME` and `${NAME}` replaced by their values; a name nothing set fails. */
function fill(text: string, variables: Map<string, string>, at: string): string {
  return text.replace(/\$\{?([A-Z][A-Z0-9_]*)\}?/g, (_, name: string) => {
    const value = variables.get(name);
    if (value === undefined) throw new Error(`${at}: $${name} is used before a request sets it`);
    return value;
  });
}

function pick(answer: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>(
    (value, key) => (value === null || typeof value !== 'object' ? undefined : (value as never)[key]),
    answer,
  );
}

describe('docs/QUICKSTART.md, the format its test reads', () => {
  const page = (bash: string) => `intro\n\n\`\`\`bash\n${bash}\n\`\`\`\n`;

  it('reads a request: method, path, headers, JSON body, expected status and capture', () => {
    const [request] = parseQuickstart(
      page(
        [
          '# expect 201',
          'KYC_ID=$(curl -s -X PUT "$API/v1/kycs" -H "x-api-key: $KEY" -d @- <<JSON | jq -r .id',
          '{"userId": "$USER_ID"}',
          'JSON',
          ')',
        ].join('\n'),
      ),
    );
    expect(request).toMatchObject({
      method: 'PUT',
      path: '/v1/kycs',
      headers: [['x-api-key', '$KEY']],
      body: '{"userId": "$USER_ID"}',
      status: 201,
      capture: { name: 'KYC_ID', path: ['id'] },
    });
    expect(
      parseQuickstart(
        page(`# expect 200\nW=$(curl -s "$API/v1/wallets?userId=$U" | jq -r '.items[0].id')`),
      )[0],
    ).toMatchObject({ method: 'GET', capture: { name: 'W', path: ['items', 0, 'id'] } });
  });

  it('refuses what it cannot run: another command, a request with no status, a variable it does not know', () => {
    expect(() => parseQuickstart(page('npm start'))).toThrow(/not a request/);
    expect(() => parseQuickstart(page('curl -s "$API/v1/users"'))).toThrow(/# expect/);
    expect(() => parseQuickstart(page('USER_ID=usr-1'))).toThrow(/set by hand/);
    expect(() => fill('/v1/users/$USER_ID', new Map(), 'here')).toThrow(/\$USER_ID is used before/);
  });
});

describe('docs/QUICKSTART.md, run against the platform', () => {
  let h: Harness;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    h = await startHarness({ allowPrivateWebhookUrls: true });
    await issuerLinked(h);
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await h?.close();
  });

  it('answers every request with the status the page states, from a user to a withdrawal', async () => {
    const requests = parseQuickstart(readFileSync(QUICKSTART, 'utf8'));
    // The steps the page promises, in its order.
    const steps = [
      'POST /v1/users',
      'PUT /v1/kycs',
      'POST /v1/simulate/kyc/$KYC_ID/complete',
      'POST /v1/simulate/kyc/$KYC_ID/approve',
      'GET /v1/wallets?userId=$USER_ID',
      'POST /v1/simulate/deposit',
      'POST /v1/webhook-subscriptions',
      'POST /v1/cards',
      'POST /v1/cards/$CARD_ID/reveal',
      'POST /v1/simulate/authorization',
      'POST /v1/simulate/authorization/clearing',
      'POST /v1/simulate/authorization/refund',
      'POST /v1/simulate/3ds',
      'POST /v1/3ds/accept',
      'POST /v1/wallets/$WALLET_ID/withdrawals',
    ];
    const written = requests.map((r) => `${r.method} ${r.path}`);
    const firsts = [...new Set(written)].filter((r) => steps.includes(r));
    expect(firsts).toEqual(steps);

    const variables = new Map([
      ['API', h.url],
      ['KEY', SANDBOX_KEY],
      ['WEBHOOK_URL', receiver.url],
    ]);
    for (const request of requests) {
      const path = fill(request.path, variables, request.at);
      const body = request.body === null ? null : JSON.parse(fill(request.body, variables, request.at));
      const send = async () => {
        let call = h.http[request.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete'](path);
        for (const [header, value] of request.headers)
          call = call.set(header, fill(value, variables, request.at));
        return body === null ? call : call.send(body);
      };
      const captured = (answer: { body: unknown }) =>
        request.capture ? pick(answer.body, request.capture.path) : 'nothing to capture';
      let answer = await send();
      if (request.method === 'GET') {
        // A read is sent again while a projection catches up, as a reader would.
        await waitFor(
          async () => {
            if (answer.status === request.status && typeof captured(answer) === 'string') return true;
            answer = await send();
            return false;
          },
          { what: `${request.at}: GET ${path} answering ${request.status}`, timeoutMs: 10_000 },
        );
      }
      expect({ at: request.at, status: answer.status }).toEqual({
        at: request.at,
        status: request.status,
        ...(answer.status === request.status ? {} : { body: answer.body }),
      });
      if (request.capture) {
        const value = captured(answer);
        expect({ at: request.at, [request.capture.name]: typeof value }).toEqual({
          at: request.at,
          [request.capture.name]: 'string',
        });
        variables.set(request.capture.name, value as string);
      }
    }

    // The listener the page starts receives the Events it names.
    await waitFor(
      () =>
        ['balance.updated', 'card.created', 'cardAuthorization.confirmed', 'withdrawal.confirmed'].every(
          (name) => receiver.acknowledged(name).length > 0,
        ),
      { what: 'the Events the quick start names, delivered to its webhook listener' },
    );
  });
});
