import {
  kycStartClaimsDecider,
  kycStartClaimsStream,
  type KycStartClaimed,
} from './kyc-start-claims.decider';

const claimed = (kycId: string): KycStartClaimed => ({
  type: 'KycStartClaimed',
  data: { kycId, at: '2026-11-27T10:00:00.000Z' },
});
const claim = (kycId: string) => ({
  type: 'ClaimKycStart' as const,
  data: { kycId, now: '2026-11-27T10:00:00.000Z' },
});
const fold = (events: KycStartClaimed[]) =>
  events.reduce(kycStartClaimsDecider.evolve, kycStartClaimsDecider.initialState());

describe('the claims of hosted KYC starts', () => {
  it('names, after each claim, the start it supersedes and every KYC ever claimed', () => {
    expect(fold([])).toEqual({ latest: null, superseded: null, claimed: [] });
    expect(fold([claimed('kyc-1')])).toEqual({ latest: 'kyc-1', superseded: null, claimed: ['kyc-1'] });
    expect(fold([claimed('kyc-1'), claimed('kyc-2'), claimed('kyc-3')])).toEqual({
      latest: 'kyc-3',
      superseded: 'kyc-2',
      claimed: ['kyc-1', 'kyc-2', 'kyc-3'],
    });
  });

  it('claims a new start, and claims a start already the latest only once (a retried append)', () => {
    expect(kycStartClaimsDecider.decide(claim('kyc-2'), fold([claimed('kyc-1')]))).toEqual([
      claimed('kyc-2'),
    ]);
    expect(kycStartClaimsDecider.decide(claim('kyc-2'), fold([claimed('kyc-1'), claimed('kyc-2')]))).toEqual(
      [],
    );
  });

  it('keeps one stream per user and kind (an RFI per subtype)', () => {
    expect(kycStartClaimsStream('usr-1', 'full')).toBe('kycstart-usr-1-full');
    expect(kycStartClaimsStream('usr-1', 'rfi', 'additional_id')).toBe('kycstart-usr-1-rfi-additional_id');
  });
});
