/** System trace audit numbers (DE-011): six digits, 000001 to 999999, then round again. */
export class StanSequence {
  constructor(private last = 0) {}

  next(): string {
    this.last = this.last >= 999_999 ? 1 : this.last + 1;
    return String(this.last).padStart(6, '0');
  }
}

/** DE-007, transmission date and time: MMDDhhmmss in UTC. */
export function transmissionDateTime(at: Date): string {
  const two = (n: number) => (n < 10 ? '0' : '') + n;
  return (
    two(at.getUTCMonth() + 1) +
    two(at.getUTCDate()) +
    two(at.getUTCHours()) +
    two(at.getUTCMinutes()) +
    two(at.getUTCSeconds())
  );
}
