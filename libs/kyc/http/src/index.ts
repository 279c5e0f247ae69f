import { HostedKycController } from './hosted-pages/hosted-kyc.controller';
import { KycSimulationController } from './kyc-simulation.controller';
import { KycController } from './kyc.controller';

export * from './kyc.dto';

/**
 * The KYC context's HTTP surface, by audience: distributors (/v1/kycs), sandbox simulations
 * (/v1/simulate/kyc), and the hosted verification pages users reach by their link.
 */
export const KYC_CONTROLLERS = [KycController, KycSimulationController, HostedKycController];
