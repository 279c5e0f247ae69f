import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  AUDIT_TRAIL,
  type AuditRecordInput,
  type AuditTrail,
  permits,
  type StaffPrincipal,
  userStatusPermission,
} from '@cip/backoffice/contract';
import { OperatorActions } from '@cip/backoffice/service';
import { type CardHold } from '@cip/cards/contract';
import { ApiErrors, ResourceIdPipe } from '@cip/gateway/http';
import { DomainError, type Environment } from '@cip/shared/contracts';
import { audited } from '../access/audited';
import { ReasonDto } from '../common/operator-dto';
import { CurrentStaff, StaffAccess } from '../access/staff-access';
import {
  CardHoldDto,
  CardHoldPipe,
  ENVIRONMENT_PARAM,
  EnvironmentPipe,
  KycReviewDto,
  RfiDto,
  UserStatusDto,
} from './environment.dto';
import {
  KycActionResponse,
  record,
  RedeliveryResponse,
  WalletSummaryResponse,
} from './environment.responses';

const ENV = new EnvironmentPipe();
const CARD_ID = new ResourceIdPipe('crd');
const CARD = { schema: record('The card after the action (masked PAN and last four only)') };
/** Who may not: a role below the action's (403 forbidden), and no session (401), for every action. */
const REFUSED = ['validation_error', 'unauthorized', 'forbidden', 'csrf_failed', 'not_found'] as const;

/**
 * The actions of the environment pages. Each needs its role (`@StaffAccess`), says why (`reason`) and is
 * recorded in the audit trail whatever its outcome (`audited`): `succeeded`, or `refused` with the domain's
 * error code, which the operator gets unchanged (`409 card_unfreeze_blocked_error`, ...).
 */
@ApiTags('Environment actions')
@ApiParam(ENVIRONMENT_PARAM)
@Controller('operator/v1/environments/:environment')
export class EnvironmentActionsController {
  constructor(
    @Inject(OperatorActions) private readonly actions: OperatorActions,
    @Inject(AUDIT_TRAIL) private readonly trail: AuditTrail,
  ) {}

  private run<T>(
    staff: StaffPrincipal,
    entry: AuditRecordInput & { reason: string },
    action: () => Promise<T>,
  ) {
    return audited(this.trail, staff, entry, action);
  }

  /** An action on a card, recorded with the card and its user. */
  private async onCard<T>(
    staff: StaffPrincipal,
    environment: Environment,
    cardId: string,
    entry: Pick<AuditRecordInput, 'action'> & { reason: string },
    action: () => Promise<T>,
  ) {
    const userId = await this.actions.userOfCard(environment, cardId);
    return this.run(staff, { ...entry, environment, target: { type: 'card', id: cardId }, userId }, action);
  }

  // -------------------------------------------------------------------------------------------------
  // Support: cards and webhooks
  // -------------------------------------------------------------------------------------------------

  @Post('cards/:cardId/freeze')
  @HttpCode(200)
  @StaffAccess('support')
  @ApiOperation({
    operationId: 'operatorFreezeCard',
    summary: 'Freeze a card',
    description:
      "The distributor's freeze, done for it (card.frozen). Freezing a frozen card changes nothing.",
  })
  @ApiOkResponse(CARD)
  @ApiErrors(...REFUSED, 'invalid_state_transition')
  async freeze(
    @Param('environment', ENV) environment: Environment,
    @Param('cardId', CARD_ID) cardId: string,
    @Body() body: ReasonDto,
    @CurrentStaff() staff: StaffPrincipal,
  ) {
    return this.onCard(staff, environment, cardId, { action: 'card.freeze', reason: body.reason }, () =>
      this.actions.freezeCard(environment, cardId),
    );
  }

  @Post('cards/:cardId/unfreeze')
  @HttpCode(200)
  @StaffAccess('support')
  @ApiOperation({
    operationId: 'operatorUnfreezeCard',
    summary: 'Unfreeze a card',
    description:
      "The distributor's unfreeze, done for it (card.unfrozen): 409 card_unfreeze_blocked_error while the " +
      'card has a compliance or fraud hold, a PIN/CVV2 block or a frozen user (its blocks).',
  })
  @ApiOkResponse(CARD)
  @ApiErrors(...REFUSED, 'invalid_state_transition', 'card_unfreeze_blocked_error')
  async unfreeze(
    @Param('environment', ENV) environment: Environment,
    @Param('cardId', CARD_ID) cardId: string,
    @Body() body: ReasonDto,
    @CurrentStaff() staff: StaffPrincipal,
  ) {
    return this.onCard(staff, environment, cardId, { action: 'card.unfreeze', reason: body.reason }, () =>
      this.actions.unfreezeCard(environment, cardId),
    );
  }

  @Post('cards/:cardId/unblock')
  @HttpCode(200)
  @StaffAccess('support')
  @ApiOperation({
    operationId: 'operatorUnblockCard',
    summary: 'Lift the PIN/CVV2 block',
    description:
      'After three consecutive wrong PIN/CVV2 entries (card.unblocked): the card is active again if the ' +
      'block froze it and no other block remains. A card without the block is 409 invalid_state_transition.',
  })
  @ApiOkResponse(CARD)
  @ApiErrors(...REFUSED, 'invalid_state_transition')
  async unblock(
    @Param('environment', ENV) environment: Environment,
    @Param('cardId', CARD_ID) cardId: string,
    @Body() body: ReasonDto,
    @CurrentStaff() staff: StaffPrincipal,
  ) {
    return this.onCard(staff, environment, cardId, { action: 'card.unblock', reason: body.reason }, () =>
      this.actions.unblockCard(environment, cardId, { operator: staff.email, reason: body.reason }),
    );
  }

  @Post('events/:eventId/redeliver')
  @HttpCode(200)
  @StaffAccess('support')
  @ApiOperation({
    operationId: 'operatorRedeliverEvent',
    summary: 'Send an Event again',
    description: 'One new delivery to every subscription of the Event’s distributor.',
  })
  @ApiOkResponse({ type: RedeliveryResponse })
  @ApiErrors(...REFUSED)
  async redeliver(
    @Param('environment', ENV) environment: Environment,
    @Param('eventId', new ResourceIdPipe(null)) eventId: string,
    @Body() body: ReasonDto,
    @CurrentStaff() staff: StaffPrincipal,
  ) {
    const userId = await this.actions.userOfEvent(environment, eventId);
    const deliveries = await this.run(
      staff,
      {
        action: 'event.redeliver',
        environment,
        target: { type: 'event', id: eventId },
        userId,
        reason: body.reason,
      },
      () => this.actions.redeliver(environment, eventId),
    );
    return { data: deliveries };
  }

  // -------------------------------------------------------------------------------------------------
  // Support and compliance: a user's status
  // -------------------------------------------------------------------------------------------------

  @Post('users/:userId/status')
  @HttpCode(200)
  @StaffAccess('support', 'compliance')
  @ApiOperation({
    operationId: 'operatorChangeUserStatus',
    summary: "Change a user's status",
    description:
      'The user lifecycle change done for its distributor (user.frozen, user.activated, user.disabled, ' +
      'user.revoked). Support freezes and unfreezes (to active); disabling, revoking and bringing back a ' +
      'disabled user need compliance (403 forbidden otherwise, audited). A transition the lifecycle refuses ' +
      '(a revoked user made active, a disabled user frozen) is 409 invalid_state_transition; the status ' +
      'the user has changes nothing.',
  })
  @ApiOkResponse({ schema: record('The user after the action (the /v1 user record plus distributorId)') })
  @ApiErrors(...REFUSED, 'invalid_state_transition')
  changeUserStatus(
    @Param('environment', ENV) environment: Environment,
    @Param('userId', new ResourceIdPipe('usr')) userId: string,
    @Body() body: UserStatusDto,
    @CurrentStaff() staff: StaffPrincipal,
  ) {
    return this.run(
      staff,
      {
        action: `user.status.${body.status}`,
        environment,
        target: { type: 'user', id: userId },
        userId,
        reason: body.reason,
      },
      async () => {
        // The role depends on the transition, so it is checked here rather than by the session guard
        // (which lets support and compliance in); refused inside `audited`, so the refusal is in the trail as the
        // guard's are. The change names the status it was allowed from: a concurrent change in between is
        // refused (409) instead of passing a check made on the old status.
        const from = await this.actions.userStatus(environment, userId);
        const needs = userStatusPermission(from, body.status);
        if (!permits(staff.role, needs))
          throw new DomainError(
            'forbidden',
            `The role ${staff.role} may not make a ${from} user ${body.status}`,
          );
        return this.actions.changeUserStatus(environment, userId, body.status, body.reason, from);
      },
    );
  }

  // -------------------------------------------------------------------------------------------------
  // Compliance: KYC, RFIs, holds
  // -------------------------------------------------------------------------------------------------

  @Post('kycs/:kycId/review')
  @HttpCode(200)
  @StaffAccess('compliance')
  @ApiOperation({
    operationId: 'operatorReviewKyc',
    summary: 'Approve or decline a submitted KYC',
    description:
      'approve verifies it and activates the user as the sandbox approval does; decline takes a declinedCode. ' +
      'A KYC not waiting for review is 409 invalid_state_transition.',
  })
  @ApiOkResponse({ type: KycActionResponse })
  @ApiErrors(...REFUSED, 'invalid_state_transition')
  async review(
    @Param('environment', ENV) environment: Environment,
    @Param('kycId', new ResourceIdPipe('kyc')) kycId: string,
    @Body() body: KycReviewDto,
    @CurrentStaff() staff: StaffPrincipal,
  ) {
    const userId = await this.actions.userOfKyc(environment, kycId);
    return this.run(
      staff,
      { action: 'kyc.review', environment, target: { type: 'kyc', id: kycId }, userId, reason: body.reason },
      () => this.actions.reviewKyc(environment, kycId, body.decision, body.declinedCode),
    );
  }

  @Post('users/:userId/rfis')
  @HttpCode(201)
  @StaffAccess('compliance')
  @ApiOperation({
    operationId: 'operatorRaiseRfi',
    summary: 'Raise a Request for Information',
    description:
      'A hosted rfi KYC the user answers through accessUrl; a declined or unanswered RFI freezes an active user.',
  })
  @ApiResponse({ status: 201, type: KycActionResponse })
  @ApiErrors(...REFUSED, 'invalid_state_transition', 'user_not_active')
  async rfi(
    @Param('environment', ENV) environment: Environment,
    @Param('userId', new ResourceIdPipe('usr')) userId: string,
    @Body() body: RfiDto,
    @CurrentStaff() staff: StaffPrincipal,
  ) {
    return this.run(
      staff,
      { action: 'kyc.rfi', environment, target: { type: 'user', id: userId }, userId, reason: body.reason },
      () => this.actions.raiseRfi(environment, userId, body.rfiSubtype),
    );
  }

  @Post('wallets/:walletId/compliance-hold')
  @HttpCode(200)
  @StaffAccess('compliance')
  @ApiOperation({
    operationId: 'operatorPlaceWalletHold',
    summary: 'Place a compliance hold on a wallet',
    description: 'Spending and withdrawals are refused (409 wallet_compliance_hold) until it is released.',
  })
  @ApiOkResponse({ type: WalletSummaryResponse })
  @ApiErrors(...REFUSED, 'invalid_state_transition')
  placeWalletHold(
    @Param('environment', ENV) environment: Environment,
    @Param('walletId', new ResourceIdPipe('wlt')) walletId: string,
    @Body() body: ReasonDto,
    @CurrentStaff() staff: StaffPrincipal,
  ) {
    return this.walletHold(environment, walletId, true, body.reason, staff);
  }

  @Post('wallets/:walletId/compliance-hold/release')
  @HttpCode(200)
  @StaffAccess('compliance')
  @ApiOperation({
    operationId: 'operatorReleaseWalletHold',
    summary: "Release a wallet's compliance hold",
    description: 'The wallet spends again.',
  })
  @ApiOkResponse({ type: WalletSummaryResponse })
  @ApiErrors(...REFUSED, 'invalid_state_transition')
  releaseWalletHold(
    @Param('environment', ENV) environment: Environment,
    @Param('walletId', new ResourceIdPipe('wlt')) walletId: string,
    @Body() body: ReasonDto,
    @CurrentStaff() staff: StaffPrincipal,
  ) {
    return this.walletHold(environment, walletId, false, body.reason, staff);
  }

  private async walletHold(
    environment: Environment,
    walletId: string,
    on: boolean,
    reason: string,
    staff: StaffPrincipal,
  ) {
    const userId = await this.actions.userOfWallet(environment, walletId);
    return this.run(
      staff,
      {
        action: on ? 'wallet.complianceHold.place' : 'wallet.complianceHold.release',
        environment,
        target: { type: 'wallet', id: walletId },
        userId,
        reason,
      },
      () => this.actions.setWalletComplianceHold(environment, walletId, on, reason),
    );
  }

  @Post('cards/:cardId/holds')
  @HttpCode(200)
  @StaffAccess('compliance')
  @ApiOperation({
    operationId: 'operatorPlaceCardHold',
    summary: 'Place a compliance or fraud hold on a card',
    description:
      "An active card is frozen (card.frozen); its distributor's unfreeze is refused (409 " +
      'card_unfreeze_blocked_error) until the hold is lifted. A hold the card has changes nothing.',
  })
  @ApiOkResponse(CARD)
  @ApiErrors(...REFUSED, 'invalid_state_transition')
  placeCardHold(
    @Param('environment', ENV) environment: Environment,
    @Param('cardId', CARD_ID) cardId: string,
    @Body() body: CardHoldDto,
    @CurrentStaff() staff: StaffPrincipal,
  ) {
    return this.cardHold(environment, cardId, body.hold, true, body.reason, staff);
  }

  @Post('cards/:cardId/holds/:hold/lift')
  @HttpCode(200)
  @StaffAccess('compliance')
  @ApiParam({ name: 'hold', enum: ['compliance_hold', 'fraud_hold'] })
  @ApiOperation({
    operationId: 'operatorLiftCardHold',
    summary: 'Lift a hold of a card',
    description:
      'The card stays frozen; its distributor (or support) unfreezes it once no other block remains. ' +
      'Lifting a hold the card does not have is 409 invalid_state_transition.',
  })
  @ApiOkResponse(CARD)
  @ApiErrors(...REFUSED, 'invalid_state_transition')
  liftCardHold(
    @Param('environment', ENV) environment: Environment,
    @Param('cardId', CARD_ID) cardId: string,
    @Param('hold', new CardHoldPipe()) hold: CardHold,
    @Body() body: ReasonDto,
    @CurrentStaff() staff: StaffPrincipal,
  ) {
    return this.cardHold(environment, cardId, hold, false, body.reason, staff);
  }

  private async cardHold(
    environment: Environment,
    cardId: string,
    hold: CardHold,
    place: boolean,
    reason: string,
    staff: StaffPrincipal,
  ) {
    const action = { operator: staff.email, reason };
    return this.onCard(
      staff,
      environment,
      cardId,
      { action: place ? 'card.hold.place' : 'card.hold.lift', reason },
      () =>
        place
          ? this.actions.placeCardHold(environment, cardId, hold, action)
          : this.actions.liftCardHold(environment, cardId, hold, action),
    );
  }
}
