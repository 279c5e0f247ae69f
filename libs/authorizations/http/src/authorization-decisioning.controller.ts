import { Body, Controller, Delete, Get, HttpCode, Inject, Put } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  AUTHORIZATION_DECISIONING_API,
  type AuthorizationDecisioningApi,
  type DecisioningOnTimeout,
} from '@cip/authorizations/contract';
import { ApiErrors, Caller, CurrentCaller } from '@cip/gateway/http';
import {
  AuthorizationDecisioningResponse,
  ConfigureDecisioningDto,
  ConfiguredDecisioningResponse,
} from './authorization-decisioning.dto';

const HOW_IT_WORKS =
  'Once the platform has approved a card payment by its own checks (card and user status, PIN/CVV2, ' +
  'spending controls), and before any money is held, it POSTs the authorization to your url and waits at ' +
  'most timeoutMs. Body: {"type":"authorization.request","authorization":{id, cardId, userId, walletId, type, ' +
  'merchant, amount (USD units), amountMinorUnits (the same in minor units, 6 decimals), currency, ' +
  'merchantAmount, merchantCurrency, fee, requestedAt}}; never a card number, CVV2 or PIN. It is signed with ' +
  'the Standard Webhooks headers (webhook-id: the authorization id, webhook-timestamp, webhook-signature ' +
  '"v1,<HMAC-SHA256>" with the secret shown when you switched decisioning on); verify it with any Standard ' +
  'Webhooks library. Answer 2xx with {"decision":"approve"} or {"decision":"decline"}; an optional "amount" ' +
  'in minor units equal to amountMinorUnits is an approval, below it a partial approval: the authorization ' +
  'holds and shows the approved amount (rounded down to the cent; fees priced on it) and the network gets ' +
  'response code 10 with the approved amount in DE-004. Only a USD merchant amount can be partially ' +
  'approved exactly: in another currency, or below one cent, the payment is declined (failedControl). ' +
  'Anything else (a timeout, a non-2xx status, a body that is not that JSON, an amount ' +
  'above the request) applies onTimeout; an answer arriving after timeoutMs is ignored and logged. If your ' +
  'endpoint keeps failing, a circuit breaker stops calling it for a few seconds and onTimeout applies at ' +
  'once. The authorization records decidedBy (platform, distributor, distributorTimeout); your decline has ' +
  'declineReasonCode failedControl (your own control, network response code 57), a fallback decline other ' +
  '(05). The funds check comes after your approval: an approved payment may still be declined ' +
  'insufficientFund. Advices (the network already decided: stand-in, offline) and refunds are never sent.';

/** Real-time authorization decisioning (beyond the spec, as Stripe Issuing, Lithic ASA and Marqeta JIT offer). */
@ApiTags('Authorization decisioning')
@Controller('v1/authorization-decisioning')
export class AuthorizationDecisioningController {
  constructor(
    @Inject(AUTHORIZATION_DECISIONING_API) private readonly decisioning: AuthorizationDecisioningApi,
  ) {}

  @Put()
  @ApiOperation({
    operationId: 'configureAuthorizationDecisioning',
    summary: 'Decide card payments in real time',
    description:
      'Switches real-time decisioning on for this environment, or changes its url, timeoutMs or onTimeout. ' +
      'The response that switches it on carries the signing `secret`, shown only then. ' +
      HOW_IT_WORKS,
  })
  @ApiResponse({ status: 200, type: ConfiguredDecisioningResponse })
  async configure(@CurrentCaller() caller: Caller, @Body() body: ConfigureDecisioningDto) {
    const { decisioning, secret } = await this.decisioning.configureDecisioning(caller, {
      url: body.url,
      timeoutMs: body.timeoutMs,
      onTimeout: body.onTimeout as DecisioningOnTimeout | undefined,
    });
    return { ...decisioning, ...(secret ? { secret } : {}) };
  }

  @Get()
  @ApiOperation({
    operationId: 'getAuthorizationDecisioning',
    summary: 'Retrieve the real-time decisioning configuration',
    description: 'The configuration of this environment (never the secret); 404 when decisioning is off.',
  })
  @ApiResponse({ status: 200, type: AuthorizationDecisioningResponse })
  @ApiErrors('not_found')
  async get(@CurrentCaller() caller: Caller) {
    return this.decisioning.getDecisioning(caller);
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'disableAuthorizationDecisioning',
    summary: 'Switch real-time decisioning off',
    description:
      'From now on the platform decides card payments alone; a later PUT switches it on with a new secret. ' +
      '404 when decisioning is already off.',
  })
  @ApiResponse({ status: 204, description: 'Switched off' })
  @ApiErrors('not_found')
  async disable(@CurrentCaller() caller: Caller) {
    await this.decisioning.disableDecisioning(caller);
  }
}
