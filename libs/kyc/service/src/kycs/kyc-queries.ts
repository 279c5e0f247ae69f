import { Caller, FindPage, FindResult } from '@cip/shared/contracts';
import { forTenant } from '@cip/shared/read-store';
import type { KycListFilter, KycResource } from '@cip/kyc/contract';
import { KycView, kycsProjection } from '@cip/kyc/read-models';
import { KycRecords, listFilter } from './kyc-records';

/** The reads of the API: a KYC by id (folded from its stream) and the list from the read model. */
export class KycQueries {
  constructor(private readonly records: KycRecords) {}

  async getKyc(caller: Caller, kycId: string): Promise<KycResource> {
    return this.records.resource(caller.environment, await this.records.owned(caller, kycId));
  }

  async listKycs(caller: Caller, filter: KycListFilter, page: FindPage): Promise<FindResult<KycResource>> {
    await this.records.ports.settle(caller.environment);
    const result = await forTenant(this.records.ports.readStore, caller).find<KycView>(
      kycsProjection.collection,
      listFilter(filter),
      page,
    );
    return {
      hasMore: result.hasMore,
      items: result.items.map((kyc) => this.records.viewResource(caller.environment, kyc)),
    };
  }
}
