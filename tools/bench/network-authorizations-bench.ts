import { F, IsoClient, IsoMessage, responseMtiOf } from '@cip/shared/iso8583';
import { systemClock } from '@cip/shared/runtime';
import { authorizationRequest, CardNetwork, type AcquirerTransaction } from '@cip/simulator/service';
import { printFigures, type Figure } from './append-bench';
import { BENCH_ACCEPTOR, benchCard } from './bench-card';

const AUTHORIZATIONS = 100_000;
const IN_FLIGHT = 64;
const PACED_RATE = 10_000;
const PACED_SECONDS = 3;
const CARD = benchCard();

/**
 * The minimal issuer responder: approves every 0100 at once. The platform's issuer side (the authorizations
 * service) is not merged yet, so these figures are the link plus the simulator's own work (references,
 * message building, encoding, matching, stand-in timer), not the issuer's decision.
 */
function approve(request: IsoMessage): IsoMessage {
  return new IsoMessage(responseMtiOf(request.mti), {
    [F.STAN]: request.get(F.STAN),
    [F.RRN]: request.get(F.RRN),
    [F.APPROVAL_CODE]: '123456',
    [F.RESPONSE_CODE]: '00',
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

/**
 * Authorizations driven by the card network simulator (`CardNetwork`, as `POST /v1/simulate/authorization`
 * uses it) to an issuer connected over loopback TCP, timed at the simulator from the 0100 sent to the 0110
 * received: closed loop at 64 in flight (throughput), then open loop at 10,000/s (the p99 target). Both ends
 * share one Node process.
 */
export async function networkAuthorizationsBench(): Promise<Figure[]> {
  console.log('\n== Card network simulator -> issuer (loopback ISO 8583; minimal issuer responder) ==');
  const network = new CardNetwork({
    clock: systemClock,
    standInTimeoutMs: 1_000,
    standIn: { limitMinor: 10_000 },
    link: { echoIdleMs: 0, maxInFlight: 4_096 },
  });
  const [host, port] = (await network.listen()).split(':');
  let connected!: () => void;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  const issuer = new IsoClient({
    host,
    port: Number(port),
    echoIdleMs: 0,
    handler: approve,
    maxInboundInFlight: 4_096,
    onEvent: (event) => event.type === 'connected' && connected(),
  });
  issuer.start();
  await ready;

  let standIns = 0;
  const authorizeOnce = async (latencies: number[]) => {
    const at = new Date();
    const tx: AcquirerTransaction = {
      acquirerId: '400001',
      acquirerCountry: '840',
      ...network.nextReferences(at),
      processingCode: '000000',
      amountMinor: 1250,
      currencyNumeric: '978',
      acceptor: BENCH_ACCEPTOR,
      entryMode: 'ecommerce',
      at,
    };
    const sent = performance.now();
    const answer = await network.authorize(authorizationRequest(tx, CARD));
    latencies.push(performance.now() - sent);
    if (answer.standIn) standIns++;
  };

  try {
    const closed: number[] = [];
    let next = 0;
    const worker = async () => {
      while (next++ < AUTHORIZATIONS) await authorizeOnce(closed);
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const rate = closed.length / ((performance.now() - started) / 1000);
    closed.sort((a, b) => a - b);

    const paced: number[] = [];
    const inFlight: Promise<void>[] = [];
    const total = PACED_RATE * PACED_SECONDS;
    const pacedStart = performance.now();
    let offered = 0;
    while (offered < total) {
      const due = Math.min(total, Math.floor(((performance.now() - pacedStart) / 1000) * PACED_RATE));
      for (; offered < due; offered++) inFlight.push(authorizeOnce(paced));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(inFlight);
    paced.sort((a, b) => a - b);

    const figures: Figure[] = [
      {
        label: `network: authorizations/s simulator->issuer (${IN_FLIGHT} in flight; link+simulator only)`,
        value: rate,
        unit: 'auths/s',
        target: { op: '>=', value: 10_000 },
      },
      {
        label: `network: decision p99 at the simulator paced at ${PACED_RATE.toLocaleString('en-US')}/s (link+simulator only)`,
        value: percentile(paced, 99),
        unit: 'ms',
        target: { op: '<=', value: 5 },
      },
      {
        label: 'network: decision p50 paced (link+simulator only)',
        value: percentile(paced, 50),
        unit: 'ms',
      },
      { label: 'network: stand-ins (issuer too slow) over both runs', value: standIns, unit: 'auths' },
    ];
    printFigures(figures);
    return figures;
  } finally {
    await issuer.close();
    await network.close();
  }
}

if (require.main === module) {
  networkAuthorizationsBench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
