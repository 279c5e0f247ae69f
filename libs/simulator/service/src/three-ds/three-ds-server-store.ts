import type { SimulatedThreeDs } from '@cip/simulator/contract';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One authentication the sandbox 3DS server started: what it saw, with the card and distributor it was for. */
export interface ThreeDsServerRecord extends SimulatedThreeDs {
  distributorId: string;
  cardId: string;
  acsTransID: string | null;
}

type JournalLine =
  | { type: 'authentication'; record: ThreeDsServerRecord }
  | { type: 'result'; acsTransID: string; result: NonNullable<SimulatedThreeDs['result']> };

/**
 * The sandbox 3DS server's memory of one environment: `<dir>/three-ds.jsonl`, an append-only journal of
 * the authentications it started and the RReqs it received (never the PAN). Synchronous appends: a line is on
 * disk before the answer that depends on it.
 */
export class ThreeDsServerStore {
  private readonly byAcsTransId = new Map<string, ThreeDsServerRecord>();
  private readonly path: string;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.path = join(dir, 'three-ds.jsonl');
    let journal = '';
    try {
      journal = readFileSync(this.path, 'utf8');
    } catch {
      // No journal yet.
    }
    for (const line of journal.split('\n')) {
      if (!line) continue;
      try {
        this.apply(JSON.parse(line) as JournalLine);
      } catch {
        // A line cut by a crash is the last one and was never acknowledged: skip it.
      }
    }
  }

  record(record: ThreeDsServerRecord): void {
    this.append({ type: 'authentication', record });
  }

  /** Records the RReq of a challenge; false when the 3DS server never started it (an unknown acsTransID). */
  recordResult(acsTransID: string, result: NonNullable<SimulatedThreeDs['result']>): boolean {
    const known = this.byAcsTransId.get(acsTransID);
    if (!known) return false;
    if (!known.result) this.append({ type: 'result', acsTransID, result });
    return true;
  }

  byAcsTransID(acsTransID: string): ThreeDsServerRecord | null {
    return this.byAcsTransId.get(acsTransID) ?? null;
  }

  private append(line: JournalLine): void {
    appendFileSync(this.path, `${JSON.stringify(line)}\n`, { mode: 0o600 });
    this.apply(line);
  }

  private apply(line: JournalLine): void {
    if (line.type === 'authentication') {
      if (line.record.acsTransID) this.byAcsTransId.set(line.record.acsTransID, line.record);
      return;
    }
    const known = this.byAcsTransId.get(line.acsTransID);
    if (known && !known.result) known.result = line.result;
  }
}
