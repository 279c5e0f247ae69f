import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  AUTHORIZATIONS_API,
  renderAuthorization,
  type AuthorizationsApi,
} from '@cip/authorizations/contract';
import {
  ApiErrors,
  ApiPageResponse,
  Caller,
  CurrentCaller,
  ResourceIdPipe,
  toPage,
  toPageQuery,
} from '@cip/gateway/http';
import { AuthorizationListQueryDto, AuthorizationResponse } from './authorizations.dto';

@ApiTags('Authorizations')
@Controller('v1/authorizations')
export class AuthorizationsController {
  constructor(@Inject(AUTHORIZATIONS_API) private readonly authorizations: AuthorizationsApi) {}

  @Get()
  @ApiOperation({
    operationId: 'listAuthorizations',
    summary: 'List card authorizations',
    description:
      'Your card authorizations in this environment, newest first by default. Filters: cardId, userId, ' +
      'status. Each is decided on the card network link (ISO 8583) when the network asks; the public Events ' +
      'cardAuthorization.confirmed / rejected / cleared / reversed / expired announce every change.',
  })
  @ApiPageResponse(AuthorizationResponse)
  async list(@CurrentCaller() caller: Caller, @Query() query: AuthorizationListQueryDto) {
    const result = await this.authorizations.listAuthorizations(
      caller,
      { cardId: query.cardId, userId: query.userId, status: query.status },
      toPageQuery(query),
    );
    return toPage(query, result, renderAuthorization);
  }

  @Get(':authorizationId')
  @ApiOperation({
    operationId: 'getAuthorization',
    summary: 'Retrieve a card authorization',
    description:
      'The authorization as it is now: the spec part 6 fields (amount in USD units, merchantAmount as a ' +
      'decimal string in merchantCurrency, fee in 6 implied decimals, decidedAt), its status and what was ' +
      'cleared or reversed. Never a card number, CVV2 or PIN.',
  })
  @ApiResponse({ status: 200, type: AuthorizationResponse })
  @ApiErrors('not_found')
  async get(
    @CurrentCaller() caller: Caller,
    @Param('authorizationId', new ResourceIdPipe('aut')) authorizationId: string,
  ) {
    return renderAuthorization(await this.authorizations.getAuthorization(caller, authorizationId));
  }
}
