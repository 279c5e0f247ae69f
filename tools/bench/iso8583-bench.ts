import {
  F,
  IsoClient,
  IsoCodec,
  IsoMessage,
  IsoServer,
  responseMtiOf,
  StanSequence,
} from '@cip/shared/iso8583';
import { printFigures, type Figure } from './append-bench';
import { benchCard } from './bench-card';

const CODEC_OPS = 200_000;
const ROUND_TRIPS = 100_000;
const IN_FLIGHT = 64;
const PACED_RATE = 10_000;
const PACED_SECONDS = 2;

const CARD = benchCard();

function authorizationRequest(stan: string): IsoMessage {
  return new IsoMessage('0100', {
    [F.PAN]: CARD.pan,
    [F.PROCESSING_CODE]: '000000',
    [F.AMOUNT_TRANSACTION]: '000000012345',
    [F.AMOUNT_CARDHOLDER_BILLING]: '000000012345',
    [F.TRANSMISSION_DATE_TIME]: '1123131415',
    [F.STAN]: stan,
    [F.LOCAL_TIME]: '141415',
    [F.LOCAL_DATE]: '1123',
    [F.EXPIRY]: CARD.expiryYymm,
    [F.MCC]: '5999',
    [F.POS_ENTRY_MODE]: '812',
    [F.ACQUIRING_INSTITUTION_ID]: '400001',
    [F.RRN]: `33271${stan}0`,
    [F.TERMINAL_ID]: 'TERM0001',
    [F.MERCHANT_ID]: 'MERCHANT0000001',
    [F.CARD_ACCEPTOR_NAME_LOCATION]: 'COFFEE SHOP'.padEnd(25) + 'PARIS'.padEnd(13) + 'FR',
    [F.CURRENCY_TRANSACTION]: '978',
    [F.CVV2]: CARD.cvv2,
  });
}

/** The trivial responder: approve, echoing STAN and RRN. */
function approve(request: IsoMessage): IsoMessage {
  return new IsoMessage(responseMtiOf(request.mti), {
    [F.STAN]: request.get(F.STAN) as string,
    [F.RRN]: request.get(F.RRN) as string,
    [F.APPROVAL_CODE]: '123456',
    [F.RESPONSE_CODE]: '00',
  });
}

function opsPerSecond(count: number, run: (i: number) => void): number {
  for (let i = 0; i < count / 10; i++) run(i); // warm-up
  const started = performance.now();
  for (let i = 0; i < count; i++) run(i);
  return count / ((performance.now() - started) / 1000);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

/**
 * The ISO 8583 codec on a typical 0100 (18 fields, secondary bitmap for CVV2), then authorization round
 * trips over a loopback TCP link (IsoClient -> IsoServer answering 0110 at once), 64 in flight. Client and
 * server share one Node process here, so the link's figure includes both ends' work.
 */
export async function iso8583Bench(): Promise<Figure[]> {
  console.log('\n== ISO 8583 codec and link (loopback TCP) ==');
  const codec = new IsoCodec();
  const sample = authorizationRequest('000001');
  const bytes = codec.encode(sample, 2);
  const encodes = opsPerSecond(CODEC_OPS, () => codec.encode(sample, 2));
  const decodes = opsPerSecond(CODEC_OPS, () => codec.decode(bytes, 2));

  const server = new IsoServer({ handler: approve, echoIdleMs: 0 });
  const port = await server.listen();
  let connected!: () => void;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  const client = new IsoClient({
    host: '127.0.0.1',
    port,
    echoIdleMs: 0,
    maxInFlight: 1_024,
    onEvent: (e) => e.type === 'connected' && connected(),
  });
  client.start();
  await ready;
  try {
    const stans = new StanSequence();
    const latencies: number[] = [];
    let next = 0;
    const worker = async () => {
      while (next++ < ROUND_TRIPS) {
        const request = authorizationRequest(stans.next());
        const sent = performance.now();
        await client.request(request);
        latencies.push(performance.now() - sent);
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const roundTrips = latencies.length / ((performance.now() - started) / 1000);
    latencies.sort((a, b) => a - b);
    const paced = await pacedLatencies(client, stans);
    const figures: Figure[] = [
      { label: 'iso8583: encode 0100 (18 fields)', value: encodes, unit: 'ops/s' },
      { label: 'iso8583: decode 0100 (18 fields)', value: decodes, unit: 'ops/s' },
      {
        label: `iso8583: round trips over loopback (${IN_FLIGHT} in flight)`,
        value: roundTrips,
        unit: 'auths/s',
        target: { op: '>=', value: 10_000 },
      },
      {
        label: `iso8583: round-trip p99 at ${IN_FLIGHT} in flight`,
        value: percentile(latencies, 99),
        unit: 'ms',
      },
      {
        label: `iso8583: round-trip p99 paced at ${PACED_RATE.toLocaleString('en-US')}/s (link only)`,
        value: percentile(paced.latencies, 99),
        unit: 'ms',
        target: { op: '<=', value: 5 },
      },
      { label: 'iso8583: paced requests refused as overloaded', value: paced.refused, unit: 'requests' },
    ];
    printFigures(figures);
    return figures;
  } finally {
    await client.close();
    await server.close();
  }
}

/**
 * Offers PACED_RATE requests a second, open loop (a request is sent when its time comes, whether or not
 * earlier ones are answered), as a network does: the latency seen at the target rate, not at saturation.
 */
async function pacedLatencies(
  client: IsoClient,
  stans: StanSequence,
): Promise<{ latencies: number[]; refused: number }> {
  const total = PACED_RATE * PACED_SECONDS;
  const latencies: number[] = [];
  const inFlight: Promise<void>[] = [];
  let refused = 0;
  const started = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * PACED_RATE));
    for (; sent < due; sent++) {
      const at = performance.now();
      inFlight.push(
        client.request(authorizationRequest(stans.next())).then(
          () => void latencies.push(performance.now() - at),
          // A stall of this shared machine can release a burst past maxInFlight: counted, not fatal.
          () => void refused++,
        ),
      );
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(inFlight);
  return { latencies: latencies.sort((a, b) => a - b), refused };
}

if (require.main === module) {
  iso8583Bench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
