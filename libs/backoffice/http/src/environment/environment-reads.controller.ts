import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { OperatorQueries } from '@cip/backoffice/service';
import { ApiErrors, ResourceIdPipe } from '@cip/gateway/http';
import type { Environment } from '@cip/shared/contracts';
import { StaffAccess } from '../access/staff-access';
import {
  CardSearchQueryDto,
  DeliveriesQueryDto,
  ENVIRONMENT_PARAM,
  EnvironmentPipe,
  OperatorListQueryDto,
  pageQuery,
  SearchQueryDto,
  SubscriptionsQueryDto,
  toTransactionFilter,
  TransactionsQueryDto,
} from './environment.dto';
import {
  CardDetailResponse,
  OperatorRecordPage,
  SearchResponse,
  TimelinePage,
  TransactionItemResponse,
  TransactionPage,
  UserDetailResponse,
} from './environment.responses';

const ENV = new EnvironmentPipe();

/** The reads of the environment pages: any signed-in staff member (docs/operator-api.md). */
@ApiTags('Environment pages')
@ApiParam(ENVIRONMENT_PARAM)
@Controller('operator/v1/environments/:environment')
export class EnvironmentReadsController {
  constructor(@Inject(OperatorQueries) private readonly queries: OperatorQueries) {}

  @StaffAccess('read')
  @Get('search')
  @ApiOperation({
    operationId: 'operatorSearch',
    summary: 'Find users, cards and transactions',
    description:
      'By the shape of q: a user id, an email, a phone in E.164, a card id, the last four digits of a card, ' +
      'an authorization id or a wallet transaction id, over every distributor of the environment.',
  })
  @ApiOkResponse({ type: SearchResponse })
  @ApiErrors('validation_error', 'unauthorized', 'not_found')
  search(@Param('environment', ENV) environment: Environment, @Query() query: SearchQueryDto) {
    return this.queries.search(environment, query.q);
  }

  @StaffAccess('read')
  @Get('cards')
  @ApiOperation({
    operationId: 'operatorCardsByLast4',
    summary: 'Cards by last four digits',
    description: 'Cards whose number ends with last4 (and of userId), newest first.',
  })
  @ApiOkResponse({ type: OperatorRecordPage })
  @ApiErrors('validation_error', 'unauthorized', 'not_found')
  cards(@Param('environment', ENV) environment: Environment, @Query() query: CardSearchQueryDto) {
    return this.queries.cardsByLast4(environment, query.last4, query.userId, pageQuery(query));
  }

  @StaffAccess('read')
  @Get('users/:userId')
  @ApiOperation({
    operationId: 'operatorGetUser',
    summary: 'A user with everything about them',
    description:
      'The user, their distributor, KYCs, wallet (balance, held, available, compliance hold), open ' +
      'authorization holds, cards, latest authorizations and wallet transactions.',
  })
  @ApiOkResponse({ type: UserDetailResponse })
  @ApiErrors('unauthorized', 'not_found')
  user(
    @Param('environment', ENV) environment: Environment,
    @Param('userId', new ResourceIdPipe('usr')) userId: string,
  ) {
    return this.queries.userDetail(environment, userId);
  }

  @StaffAccess('read')
  @Get('users/:userId/timeline')
  @ApiOperation({
    operationId: 'operatorUserTimeline',
    summary: "A user's timeline",
    description:
      "Every public Event of the user (theirs, their wallet's, cards', KYCs' and authorizations') merged " +
      'with the staff actions on them, newest first.',
  })
  @ApiOkResponse({ type: TimelinePage })
  @ApiErrors('validation_error', 'unauthorized', 'not_found')
  userTimeline(
    @Param('environment', ENV) environment: Environment,
    @Param('userId', new ResourceIdPipe('usr')) userId: string,
    @Query() query: OperatorListQueryDto,
  ) {
    return this.queries.userTimeline(environment, userId, pageQuery(query));
  }

  @StaffAccess('read')
  @Get('cards/:cardId')
  @ApiOperation({
    operationId: 'operatorGetCard',
    summary: 'A card with its holder and latest authorizations',
    description: 'Masked PAN and last four digits only: never the number or the CVV2.',
  })
  @ApiOkResponse({ type: CardDetailResponse })
  @ApiErrors('unauthorized', 'not_found')
  card(
    @Param('environment', ENV) environment: Environment,
    @Param('cardId', new ResourceIdPipe('crd')) cardId: string,
  ) {
    return this.queries.cardDetail(environment, cardId);
  }

  @StaffAccess('read')
  @Get('cards/:cardId/timeline')
  @ApiOperation({
    operationId: 'operatorCardTimeline',
    summary: "A card's timeline",
    description:
      "The card's Events (its own and its authorizations') and the staff actions on it, newest first.",
  })
  @ApiOkResponse({ type: TimelinePage })
  @ApiErrors('validation_error', 'unauthorized', 'not_found')
  cardTimeline(
    @Param('environment', ENV) environment: Environment,
    @Param('cardId', new ResourceIdPipe('crd')) cardId: string,
    @Query() query: OperatorListQueryDto,
  ) {
    return this.queries.cardTimeline(environment, cardId, pageQuery(query));
  }

  @StaffAccess('read')
  @Get('transactions')
  @ApiOperation({
    operationId: 'operatorListTransactions',
    summary: 'Authorizations and wallet transactions',
    description:
      'Newest first. kind picks authorizations or one type of wallet transaction (card movements of the ' +
      'ledger are shown as their authorizations); cardId keeps authorizations only; from and to bound ' +
      'createdAt (inclusive). An unknown distributorId is 404 not_found.',
  })
  @ApiOkResponse({ type: TransactionPage })
  @ApiErrors('validation_error', 'unauthorized', 'not_found')
  transactions(@Param('environment', ENV) environment: Environment, @Query() query: TransactionsQueryDto) {
    return this.queries.transactions(environment, toTransactionFilter(query), pageQuery(query));
  }

  @StaffAccess('read')
  @Get('transactions/:transactionId')
  @ApiOperation({
    operationId: 'operatorGetTransaction',
    summary: 'One authorization or wallet transaction',
    description: 'By its id: aut-... (an authorization) or txn-... (a wallet transaction).',
  })
  @ApiOkResponse({ type: TransactionItemResponse })
  @ApiErrors('unauthorized', 'not_found')
  transaction(
    @Param('environment', ENV) environment: Environment,
    @Param('transactionId', new ResourceIdPipe('(?:aut|txn)')) transactionId: string,
  ) {
    return this.queries.transaction(environment, transactionId);
  }

  @StaffAccess('read')
  @Get('kyc-reviews')
  @ApiOperation({
    operationId: 'operatorKycReviewQueue',
    summary: 'The KYC review queue',
    description: 'Submitted KYCs (status completed) waiting for a reviewer, oldest first.',
  })
  @ApiOkResponse({ type: OperatorRecordPage })
  @ApiErrors('validation_error', 'unauthorized', 'not_found')
  kycReviews(@Param('environment', ENV) environment: Environment, @Query() query: OperatorListQueryDto) {
    return this.queries.kycReviewQueue(environment, pageQuery(query));
  }

  @StaffAccess('read')
  @Get('webhook-subscriptions')
  @ApiOperation({
    operationId: 'operatorListWebhookSubscriptions',
    summary: 'Webhook subscriptions',
    description: "Every distributor's subscriptions (or one distributor's), newest first. Never a secret.",
  })
  @ApiOkResponse({ type: OperatorRecordPage })
  @ApiErrors('validation_error', 'unauthorized', 'not_found')
  subscriptions(@Param('environment', ENV) environment: Environment, @Query() query: SubscriptionsQueryDto) {
    return this.queries.webhookSubscriptions(environment, query.distributorId, pageQuery(query));
  }

  @StaffAccess('read')
  @Get('webhook-subscriptions/:subscriptionId/deliveries')
  @ApiOperation({
    operationId: 'operatorListWebhookDeliveries',
    summary: "A subscription's deliveries",
    description: 'Delivery attempts of the Events sent to the subscription, newest first.',
  })
  @ApiOkResponse({ type: OperatorRecordPage })
  @ApiErrors('validation_error', 'unauthorized', 'not_found')
  deliveries(
    @Param('environment', ENV) environment: Environment,
    @Param('subscriptionId', new ResourceIdPipe('whs')) subscriptionId: string,
    @Query() query: DeliveriesQueryDto,
  ) {
    return this.queries.webhookDeliveries(environment, subscriptionId, query.status, pageQuery(query));
  }
}
