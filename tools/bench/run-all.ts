import { appendBench, formatNumber, formatTarget, verdict, type Figure } from './append-bench';
import { cardsHttpBench } from './cards-http-bench';
import { cardVaultBench } from './card-vault-bench';
import { ledgerPostingsBench } from './ledger-postings';
import { ledgerHoldsBench } from './ledger-holds-bench';
import { chainDepositLatencyBench } from './chain-deposit-latency';
import { iso8583Bench } from './iso8583-bench';
import { issuerAuthorizationsBench } from './issuer-authorizations-bench';
import { networkAuthorizationsBench } from './network-authorizations-bench';
import { readModelLookupsBench } from './read-model-lookups-bench';
import { splitTopologyBench } from './split-topology-bench';
import { startupMemoryBench } from './startup-memory-bench';
import { threeDsBench } from './three-ds-bench';
import { usersHttpBench } from './users-http-bench';
import { webhooksDeliveryBench } from './webhooks-delivery-bench';

function summaryTable(figures: Figure[]): string {
  const rows = figures.map((f) => [
    f.label,
    `${formatNumber(f.value)} ${f.unit}`,
    formatTarget(f),
    verdict(f),
  ]);
  const header = ['Figure', 'Measured', 'Target', 'Result'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 1 || i === 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** Reports, never gates: a missed target still exits 0; only a crash of a bench exits non-zero. */
async function main(): Promise<void> {
  const started = performance.now();
  console.log(`Benchmarks on ${process.platform}/${process.arch}, Node ${process.version}`);
  const figures = [
    ...(await appendBench()),
    ...(await usersHttpBench()),
    ...(await startupMemoryBench()),
    ...(await ledgerPostingsBench()),
    ...(await ledgerHoldsBench()),
    ...(await webhooksDeliveryBench()),
    ...(await chainDepositLatencyBench()),
    ...(await cardsHttpBench()),
    ...(await cardVaultBench()),
    ...(await iso8583Bench()),
    ...(await networkAuthorizationsBench()),
    ...(await issuerAuthorizationsBench()),
    ...(await threeDsBench()),
    ...(await readModelLookupsBench()),
    ...(await splitTopologyBench()),
  ];
  console.log(`\n== Summary (${formatNumber((performance.now() - started) / 1000)} s) ==`);
  console.log(summaryTable(figures));
  const missed = figures.filter((f) => verdict(f) === 'FAIL').length;
  console.log(missed ? `\n${missed} target(s) missed.` : '\nAll targets met.');
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('Benchmark crashed:', error);
    process.exit(1);
  },
);
