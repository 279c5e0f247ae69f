/**
 * Retrieval reference numbers (DE-037), set by the acquirer and constant over the transaction's life: the
 * last digit of the year and the day of the year (`yddd`, as ISO 8583 acquirers do), then an 8-digit
 * sequence, so an RRN repeats only after 100 million transactions a day. The sequence starts at a seed
 * (the simulator seeds it from the clock at start) so a restart does not reuse the day's references.
 */
export class RrnSequence {
  constructor(private last = 0) {}

  next(at: Date): string {
    this.last = (this.last + 1) % 100_000_000;
    const start = Date.UTC(at.getUTCFullYear(), 0, 0);
    const dayOfYear = Math.floor((at.getTime() - start) / 86_400_000);
    return (
      String(at.getUTCFullYear() % 10) +
      String(dayOfYear).padStart(3, '0') +
      String(this.last).padStart(8, '0')
    );
  }
}
