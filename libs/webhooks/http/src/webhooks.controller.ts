import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Query,
  Res,
} from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  ApiErrors,
  ApiPageResponse,
  Caller,
  CurrentCaller,
  ResourceIdPipe,
  toPage,
  toPageQuery,
} from '@cip/gateway/http';
import { renderDelivery, renderWebhookSubscription, WEBHOOKS_API, WebhooksApi } from '@cip/webhooks/contract';
import type { FastifyReply } from 'fastify';
import {
  CreatedWebhookSubscriptionResponse,
  DeliveryListQueryDto,
  DeliveryResponse,
  PublicKeyResponseDto,
  RedeliveryResponse,
  WebhookSubscriptionListQueryDto,
  WebhookSubscriptionResponse,
  WebhookUrlDto,
} from './webhooks.dto';

const SUBSCRIPTION_ID = new ResourceIdPipe('whs');

@ApiTags('Webhooks')
@Controller('v1/webhook-subscriptions')
export class WebhookSubscriptionsController {
  constructor(@Inject(WEBHOOKS_API) private readonly webhooks: WebhooksApi) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createWebhookSubscription',
    summary: 'Create a webhook subscription',
    description:
      'Runs the verification handshake at once: POSTs {"type":"webhookSubscription.verification","challenge"} ' +
      'to the url; a 2xx answer echoing the challenge (JSON {"challenge"} or the bare text) verifies it. ' +
      'Unverified subscriptions receive nothing. You may hold several subscriptions per environment; each ' +
      'verified one receives every Event. The `secret` is shown only in this response.',
  })
  @ApiResponse({ status: 201, type: CreatedWebhookSubscriptionResponse })
  async create(
    @CurrentCaller() caller: Caller,
    @Body() body: WebhookUrlDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { subscription, secret } = await this.webhooks.createSubscription(caller, body.url);
    reply.header('location', `/v1/webhook-subscriptions/${subscription.id}`);
    return { ...renderWebhookSubscription(subscription), secret };
  }

  @Get()
  @ApiOperation({
    operationId: 'listWebhookSubscriptions',
    summary: 'List webhook subscriptions',
    description: 'Your subscriptions in this environment (deleted ones are not listed). Filter: status.',
  })
  @ApiPageResponse(WebhookSubscriptionResponse)
  async list(@CurrentCaller() caller: Caller, @Query() query: WebhookSubscriptionListQueryDto) {
    const result = await this.webhooks.listSubscriptions(
      caller,
      { status: query.status },
      toPageQuery(query),
    );
    return toPage(query, result, renderWebhookSubscription);
  }

  @Get('public-key')
  @ApiOperation({
    operationId: 'getWebhookPublicKey',
    summary: 'The public key that verifies event signatures',
    description:
      'Deliveries carry Standard Webhooks headers webhook-id (the eventId), webhook-timestamp (unix seconds) and ' +
      'webhook-signature: "v1a,<base64 Ed25519 signature>" over "{webhook-id}.{webhook-timestamp}.{raw body}" ' +
      '(one per key in `keys` during a rotation), and "v1,<base64 HMAC-SHA256>" with the subscription secret.',
  })
  @ApiResponse({ status: 200, type: PublicKeyResponseDto })
  publicKey(@CurrentCaller() caller: Caller) {
    return this.webhooks.publicKey(caller);
  }

  @Get(':subscriptionId')
  @ApiOperation({
    operationId: 'getWebhookSubscription',
    summary: 'Retrieve a webhook subscription',
    description: 'Its status and the outcome of the last verification handshake.',
  })
  @ApiResponse({ status: 200, type: WebhookSubscriptionResponse })
  async get(
    @CurrentCaller() caller: Caller,
    @Param('subscriptionId', SUBSCRIPTION_ID) subscriptionId: string,
  ) {
    return renderWebhookSubscription(await this.webhooks.getSubscription(caller, subscriptionId));
  }

  @Put(':subscriptionId')
  @ApiOperation({
    operationId: 'updateWebhookSubscription',
    summary: 'Change the url of a subscription',
    description:
      'A new url needs verification again: the handshake runs at once (webhookSubscription.updated).',
  })
  @ApiResponse({ status: 200, type: WebhookSubscriptionResponse })
  @ApiErrors('invalid_state_transition')
  async update(
    @CurrentCaller() caller: Caller,
    @Param('subscriptionId', SUBSCRIPTION_ID) subscriptionId: string,
    @Body() body: WebhookUrlDto,
  ) {
    return renderWebhookSubscription(await this.webhooks.changeUrl(caller, subscriptionId, body.url));
  }

  @Delete(':subscriptionId')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteWebhookSubscription',
    summary: 'Delete a subscription',
    description: 'Its pending deliveries are cancelled.',
  })
  @ApiResponse({ status: 204, description: 'Deleted' })
  async remove(
    @CurrentCaller() caller: Caller,
    @Param('subscriptionId', SUBSCRIPTION_ID) subscriptionId: string,
  ) {
    await this.webhooks.deleteSubscription(caller, subscriptionId);
  }

  @Post(':subscriptionId/verify')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'verifyWebhookSubscription',
    summary: 'Run the verification handshake again',
    description: 'Also re-enables a disabled subscription once the url answers.',
  })
  @ApiResponse({ status: 200, type: WebhookSubscriptionResponse })
  @ApiErrors('invalid_state_transition')
  async verify(
    @CurrentCaller() caller: Caller,
    @Param('subscriptionId', SUBSCRIPTION_ID) subscriptionId: string,
  ) {
    return renderWebhookSubscription(await this.webhooks.verifySubscription(caller, subscriptionId));
  }

  @Get(':subscriptionId/deliveries')
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: 'Delivery log of a subscription',
    description:
      'Every delivery with its attempts (status code, latency, error) and next retry. Failed attempts are retried ' +
      'with exponential back-off and jitter over about 27 hours (8 attempts), honouring Retry-After on 429/503.',
  })
  @ApiPageResponse(DeliveryResponse)
  async deliveries(
    @CurrentCaller() caller: Caller,
    @Param('subscriptionId', SUBSCRIPTION_ID) subscriptionId: string,
    @Query() query: DeliveryListQueryDto,
  ) {
    const result = await this.webhooks.listDeliveries(
      caller,
      subscriptionId,
      { eventId: query.eventId, status: query.status },
      toPageQuery(query),
    );
    return toPage(query, result, renderDelivery);
  }
}

@ApiTags('Events')
@Controller('v1/events')
export class EventRedeliveryController {
  constructor(@Inject(WEBHOOKS_API) private readonly webhooks: WebhooksApi) {}

  @Post(':eventId/redeliver')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'redeliverEvent',
    summary: 'Send an Event again',
    description:
      'Queues a new delivery of the Event to every verified subscription (same webhook-id: it is the eventId). ' +
      '409 invalid_state_transition when no subscription is verified.',
  })
  @ApiResponse({ status: 202, type: RedeliveryResponse })
  @ApiErrors('invalid_state_transition')
  async redeliver(
    @CurrentCaller() caller: Caller,
    @Param('eventId', new ResourceIdPipe(null)) eventId: string,
  ) {
    const deliveries = await this.webhooks.redeliver(caller, eventId);
    return { eventId, deliveries: deliveries.map(renderDelivery) };
  }
}
