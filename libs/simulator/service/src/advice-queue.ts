import {
  backoffDelay,
  F,
  IsoLinkError,
  type IsoMessage,
  type ReconnectOptions,
  type RequestOptions,
} from '@cip/shared/iso8583';

/** Sends a request over the link (the network's `IsoServer`). */
export type LinkRequest = (message: IsoMessage, options?: RequestOptions) => Promise<IsoMessage>;

export interface AdviceQueueOptions {
  /** How long to wait for each 0130/0430. Default 5,000 ms. */
  ackTimeoutMs?: number;
  /** Delay between attempts: doubling from 200 ms up to 10 s by default, with jitter. */
  retry?: ReconnectOptions;
  /** An advice that can never be sent (it does not encode: a bug), dropped rather than retried forever. */
  onDropped?: (mti: string, error: unknown) => void;
}

interface PendingAdvice {
  message: IsoMessage;
  attempts: number;
  timer: NodeJS.Timeout | undefined;
  sending: boolean;
  acknowledged: Promise<IsoMessage>;
  resolve: (ack: IsoMessage) => void;
}

/**
 * Store and forward of advices (0120 stand-in, 0420 reversal): each is sent, and sent again with back-off,
 * until the issuer acknowledges it; a repeat keeps its STAN and RRN, so the issuer takes it as the same
 * advice. `flush()` retries everything at once (the network calls it when an issuer connects).
 *
 * In memory: an advice carries the PAN, which the network writes nowhere. Durability is the journal's
 * (`SimulatorStore.oweAdvice`): after a restart `SimulatorService.forwardOwedAdvices` rebuilds the owed advices
 * from it and the card vault and queues them here again.
 */
export class AdviceQueue {
  private readonly pending = new Map<string, PendingAdvice>();
  private closed = false;

  constructor(
    private readonly send: LinkRequest,
    private readonly options: AdviceQueueOptions = {},
  ) {}

  /** Advices not yet acknowledged. */
  get size(): number {
    return this.pending.size;
  }

  /** Queues an advice and sends it now; resolves with the issuer's acknowledgement, however many tries. */
  enqueue(message: IsoMessage): Promise<IsoMessage> {
    const key = `${message.mti}:${message.get(F.STAN)}:${message.get(F.RRN)}`;
    const existing = this.pending.get(key);
    if (existing) return existing.acknowledged;
    let resolve!: (ack: IsoMessage) => void;
    const acknowledged = new Promise<IsoMessage>((done) => (resolve = done));
    const entry: PendingAdvice = {
      message,
      attempts: 0,
      timer: undefined,
      sending: false,
      acknowledged,
      resolve,
    };
    this.pending.set(key, entry);
    this.attempt(key, entry);
    return acknowledged;
  }

  /** Sends every waiting advice now instead of at its next retry. */
  flush(): void {
    for (const [key, entry] of this.pending) {
      if (entry.sending) continue;
      clearTimeout(entry.timer);
      this.attempt(key, entry);
    }
  }

  /** Stops retrying (the advices left are lost with the process, as documented). */
  close(): void {
    this.closed = true;
    for (const entry of this.pending.values()) clearTimeout(entry.timer);
  }

  private attempt(key: string, entry: PendingAdvice): void {
    if (this.closed) return;
    entry.sending = true;
    entry.timer = undefined;
    this.send(entry.message, { timeoutMs: this.options.ackTimeoutMs ?? 5_000 }).then(
      (ack) => {
        this.pending.delete(key);
        entry.resolve(ack);
      },
      (error: unknown) => {
        entry.sending = false;
        // Only link failures are retried; a message that does not encode never will (a bug): drop it loudly.
        if (!(error instanceof IsoLinkError)) {
          this.pending.delete(key);
          this.options.onDropped?.(entry.message.mti, error);
          return;
        }
        if (this.closed) return;
        const delay = backoffDelay(entry.attempts++, {
          initialDelayMs: 200,
          maxDelayMs: 10_000,
          ...this.options.retry,
        });
        entry.timer = setTimeout(() => this.attempt(key, entry), delay);
      },
    );
  }
}
