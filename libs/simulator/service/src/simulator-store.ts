import type { ClearingFile } from '@cip/simulator/contract';
import type { AcquirerTransaction } from './network/acquirer-messages';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the network remembers of a transaction it carried: never the PAN, expiry, CVV2 or PIN. */
export interface NetworkTransaction {
  distributorId: string;
  cardId: string;
  panLast4: string;
  /** The acquirer's transaction, with `at` as an ISO string on disk. */
  tx: AcquirerTransaction;
  responseCode: string;
  approvalCode: string | null;
  /** A partial approval (response code 10): the minor units the issuer approved (its 0110's DE-004). */
  approvedMinor?: number;
  /** Minor units released by reversals so far. */
  reversedMinor: number;
  /** The issuer's authorization id, once the issuer has shown its record. */
  authorizationId: string | null;
}

/**
 * An advice the network owes the issuer, as journaled: enough to rebuild the message (with the PAN read again
 * from the card vault) after a restart, without any card data on disk.
 */
export type OwedAdvice =
  | {
      kind: 'stand_in';
      /** The 0120 keeps the 0100's STAN. */
      stan: string;
      responseCode: string;
      approvalCode: string | null;
      reason: 'STIP:timeout' | 'STIP:unavailable';
    }
  | { kind: 'reversal'; stan: string; reversalStan: string; at: string; remainingMinor: number };

type JournalLine =
  | { type: 'transaction'; rrn: string; transaction: Omit<NetworkTransaction, 'tx'> & { tx: SerializedTx } }
  | { type: 'authorization'; rrn: string; authorizationId: string }
  | { type: 'reversed'; rrn: string; reversedMinor: number }
  | { type: 'advice'; rrn: string; advice: OwedAdvice }
  | { type: 'advice_acknowledged'; rrn: string; stan: string };

type SerializedTx = Omit<AcquirerTransaction, 'at'> & { at: string };

/**
 * The network's memory of one environment, under `<dir>`: `transactions.jsonl` (an append-only journal of
 * the transactions it carried, their authorization ids and reversals: what later reversals and presentments
 * need) and `clearing/<fileId>.txt` (every clearing file it produced). Synchronous appends: the sandbox
 * simulations are a few a second, and a line is on disk before the HTTP answer.
 */
export class SimulatorStore {
  private readonly byRrn = new Map<string, NetworkTransaction>();
  private readonly byAuthorization = new Map<string, string>();
  /** Advices not yet acknowledged, by `rrn:stan`. */
  private readonly owed = new Map<string, { rrn: string; advice: OwedAdvice }>();
  private readonly journalPath: string;
  private readonly clearingDir: string;
  private fileSequence: number;

  constructor(dir: string) {
    this.journalPath = join(dir, 'transactions.jsonl');
    this.clearingDir = join(dir, 'clearing');
    mkdirSync(this.clearingDir, { recursive: true, mode: 0o700 });
    this.fileSequence = readdirSync(this.clearingDir).filter((name) => name.endsWith('.txt')).length;
    let journal = '';
    try {
      journal = readFileSync(this.journalPath, 'utf8');
    } catch {
      // No journal yet: a new environment.
    }
    for (const line of journal.split('\n')) {
      // A line cut by a crash is the last one and was never acknowledged: skip it.
      if (line) this.apply(parseLine(line));
    }
  }

  record(transaction: NetworkTransaction): void {
    const { tx, ...rest } = transaction;
    this.append({
      type: 'transaction',
      rrn: tx.rrn,
      transaction: { ...rest, tx: { ...tx, at: tx.at.toISOString() } },
    });
  }

  linkAuthorization(rrn: string, authorizationId: string): void {
    if (this.byRrn.get(rrn)?.authorizationId === authorizationId) return;
    this.append({ type: 'authorization', rrn, authorizationId });
  }

  recordReversal(rrn: string, reversedMinor: number): void {
    this.append({ type: 'reversed', rrn, reversedMinor });
  }

  /** Journals an advice before the acquirer is answered: it survives a restart until acknowledged. */
  oweAdvice(rrn: string, advice: OwedAdvice): void {
    this.append({ type: 'advice', rrn, advice });
  }

  adviceAcknowledged(rrn: string, stan: string): void {
    if (this.owed.has(`${rrn}:${stan}`)) this.append({ type: 'advice_acknowledged', rrn, stan });
  }

  /** The advices journaled and not acknowledged, with their transactions. */
  owedAdvices(): { transaction: NetworkTransaction; advice: OwedAdvice }[] {
    const owed: { transaction: NetworkTransaction; advice: OwedAdvice }[] = [];
    for (const { rrn, advice } of this.owed.values()) {
      const transaction = this.byRrn.get(rrn);
      if (transaction) owed.push({ transaction, advice });
    }
    return owed;
  }

  byAuthorizationId(authorizationId: string): NetworkTransaction | null {
    const rrn = this.byAuthorization.get(authorizationId);
    return rrn ? (this.byRrn.get(rrn) ?? null) : null;
  }

  /** The next clearing file's sequence number in this environment. */
  nextFileSequence(): number {
    return ++this.fileSequence;
  }

  /** Writes a clearing file atomically (temporary file, then rename). */
  storeClearingFile(file: ClearingFile): string {
    const path = join(this.clearingDir, `${file.fileId}.txt`);
    writeFileSync(`${path}.tmp`, file.content, { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
    return path;
  }

  private append(line: JournalLine): void {
    appendFileSync(this.journalPath, `${JSON.stringify(line)}\n`, { mode: 0o600 });
    this.apply(line);
  }

  private apply(line: JournalLine | null): void {
    if (!line) return;
    if (line.type === 'transaction') {
      const { tx, ...rest } = line.transaction;
      this.byRrn.set(line.rrn, { ...rest, tx: { ...tx, at: new Date(tx.at) } });
      if (rest.authorizationId) this.byAuthorization.set(rest.authorizationId, line.rrn);
      return;
    }
    if (line.type === 'advice') {
      this.owed.set(`${line.rrn}:${line.advice.stan}`, { rrn: line.rrn, advice: line.advice });
      return;
    }
    if (line.type === 'advice_acknowledged') {
      this.owed.delete(`${line.rrn}:${line.stan}`);
      return;
    }
    const transaction = this.byRrn.get(line.rrn);
    if (!transaction) return;
    if (line.type === 'authorization') {
      transaction.authorizationId = line.authorizationId;
      this.byAuthorization.set(line.authorizationId, line.rrn);
    } else {
      transaction.reversedMinor = line.reversedMinor;
    }
  }
}

function parseLine(line: string): JournalLine | null {
  try {
    return JSON.parse(line) as JournalLine;
  } catch {
    return null;
  }
}
