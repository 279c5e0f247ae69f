import { KycResource, renderKyc } from '@cip/kyc/contract';

/** A KYC as the API renders it: the record, with the user's link while it works. */
export const renderResource = ({ kyc, accessUrl }: KycResource) => renderKyc(kyc, accessUrl);
