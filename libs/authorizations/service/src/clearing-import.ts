import { DomainError, type Environment } from '@cip/shared/contracts';
import type { Logger } from '@cip/shared/runtime';
import {
  readClearingFile,
  type ClearingFile,
  type ClearingFileSink,
  type ClearingPresentment,
} from '@cip/simulator/contract';
import { Counter, type Registry } from 'prom-client';
import type { AuthorizationsService } from './authorizations.service';
import type { ClearingExceptions } from './clearing-exceptions';

export class ClearingImportMetrics {
  readonly lines: Counter<'environment' | 'kind' | 'result'>;

  constructor(registry: Registry) {
    this.lines = new Counter({
      name: 'authorization_clearing_lines_total',
      help: 'Clearing file lines imported: applied (or seen before), or exception (left for operators)',
      labelNames: ['environment', 'kind', 'result'] as const,
      registers: [registry],
    });
  }
}

/**
 * The issuer side's clearing importer (`CLEARING_FILE_SINK`): reads the file's text (a malformed file, or
 * one whose trailer does not match its records, is refused whole) and applies each line in order, keyed by
 * `<fileId>:<sequence>`, so importing a file again changes nothing. A line that cannot apply (unknown
 * authorization or card, beyond the tolerance, already closed) is an exception for operators: recorded
 * (`ClearingExceptions`, listed by `npm run cli -- authorizations clearing-exceptions`), logged as
 * `clearing line not applied` with the file, line and reason (no card data) and counted in
 * `authorization_clearing_lines_total{result="exception"}`; the other lines still apply. An infrastructure
 * failure fails the delivery, which is safe to repeat.
 */
export class ClearingImport implements ClearingFileSink {
  constructor(
    private readonly authorizations: Pick<AuthorizationsService, 'clearPresentment'>,
    private readonly logger: Logger,
    private readonly metrics: ClearingImportMetrics,
    private readonly exceptions: Pick<ClearingExceptions, 'record'>,
  ) {}

  /**
   * Whether the presentment's authorization can still take one: a dry run of the smallest presentment (one
   * minor unit of its currency), so the answer is about the authorization's state, not the line's amount
   * (beyond the tolerance is an exception of the file's line, as for any file).
   */
  async checkPresentment(environment: Environment, presentment: ClearingPresentment): Promise<void> {
    if (presentment.kind !== 'presentment') return;
    await this.authorizations.clearPresentment(
      environment,
      'clearing:check',
      { ...presentment, amountMinor: 1 },
      { dryRun: true },
    );
  }

  async deliver(environment: Environment, file: ClearingFile): Promise<void> {
    const read = readClearingFile(file.content);
    for (const line of read.presentments) {
      const where = { fileId: read.fileId, sequence: line.sequence, kind: line.kind };
      let result: 'applied' | 'exception' = 'applied';
      try {
        await this.authorizations.clearPresentment(
          environment,
          `clearing:${read.fileId}:${line.sequence}`,
          line,
        );
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        result = 'exception';
        await this.exceptions.record(environment, {
          fileId: read.fileId,
          sequence: line.sequence,
          kind: line.kind,
          acquirerId: line.acquirerId,
          rrn: line.rrn,
          approvalCode: line.approvalCode,
          cardId: line.cardId,
          amountMinor: line.amountMinor,
          currency: line.currency,
          merchantName: line.merchantName,
          presentedAt: line.presentedAt,
          code: error.code,
          reason: error.message,
        });
        this.logger.warn(
          { ...where, environment, acquirerId: line.acquirerId, rrn: line.rrn, reason: error.message },
          'clearing line not applied',
        );
      }
      this.metrics.lines.inc({ environment, kind: line.kind, result });
    }
  }
}
