import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  ApiErrors,
  ApiPageResponse,
  Caller,
  CurrentCaller,
  ListQueryDto,
  ResourceIdPipe,
  toPage,
  toPageQuery,
} from '@cip/gateway/http';
import { renderToken, TOKENIZATION_API, TokenizationApi } from '@cip/tokenization/contract';
import {
  ActivateTokenizationDto,
  ApplePayTokenizationRequestDto,
  ApplePayTokenizationResponse,
  GooglePayTokenizationRequestDto,
  GooglePayTokenizationResponse,
  TokenResponse,
} from './tokenization.dto';

const FLOW =
  'Spec part 4, "Tokenization flow": call this, hand the payload to the wallet, then, once the user ' +
  'authenticated with the provider, call activate-tokenization with the token reference the wallet reports ' +
  '(also in `token.tokenReferenceId` here, and at GET /v1/cards/{cardId}/tokens). Active cards only (409 ' +
  'card_not_active). The card number and expiry are only inside the encrypted payload.';

@ApiTags('Tokenization')
@Controller('v1/cards')
export class TokenizationController {
  constructor(@Inject(TOKENIZATION_API) private readonly tokenization: TokenizationApi) {}

  @Post(':cardId/apple-pay-tokenization')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'tokenizeCardForApplePay',
    summary: 'Encrypt the card for Apple Pay in-app provisioning',
    description:
      `${FLOW} Records a token pending activation. Apple keeps its exact encryption scheme confidential to ` +
      'its issuers, so this API uses a named, documented stand-in, `cip-applepay-ecc-standin-v1`: the ' +
      "certificate chain (leaf first, each signed by the next, valid now; without Apple's root it is checked " +
      "for consistency only) gives the leaf's EC P-256 public key; ECDH (NIST SP 800-56A) with a fresh " +
      'ephemeral P-256 key, whose uncompressed point is `ephemeralPublicKey`; HKDF-SHA256 (RFC 5869) of the ' +
      "shared secret with the nonce's bytes as salt and `cip-applepay-ecc-standin-v1` as info gives an " +
      'AES-256 key; AES-256-GCM with a random 12-byte IV and the ephemeral point as additional data seals the ' +
      'JSON `{primaryAccountNumber, expiration: "MM/YY", nonce, nonceSignature}`; `encryptedPassData` is ' +
      'base64 IV || ciphertext || tag. The nonce signature is sealed for Apple, not verified (only Apple holds ' +
      'the device keys). `activationData` is 32 random bytes, base64.',
  })
  @ApiResponse({ status: 200, type: ApplePayTokenizationResponse })
  @ApiErrors('not_found', 'card_not_active')
  async applePay(
    @CurrentCaller() caller: Caller,
    @Param('cardId', new ResourceIdPipe('crd')) cardId: string,
    @Body() body: ApplePayTokenizationRequestDto,
  ) {
    const { token, ...payload } = await this.tokenization.tokenizeForApplePay(caller, cardId, {
      certificates: body.certificates,
      nonce: body.nonce,
      nonceSignature: body.nonceSignature,
    });
    return { ...payload, token: renderToken(token) };
  }

  @Post(':cardId/google-pay-tokenization')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'tokenizeCardForGooglePay',
    summary: 'Encrypt the card for Google Pay push provisioning',
    description:
      `${FLOW} Records a token pending activation. \`opaquePaymentCard\` follows Google's public "Google ` +
      'Opaque Payment Card" specification: the JSON `{protocolHeader: {version: 1}, validationContext, ' +
      'paymentCard: {accountNumber, expiryMonth: "MM", expiryYear: "YY"}}`, OpenPGP-signed with the issuer\'s ' +
      "key and encrypted to Google's key (RFC 4880/9580), standard base64. One stand-in: the validation " +
      'context carries `walletAccountId` and `deviceId` (Google documents `serverSessionId`, which this API ' +
      "does not receive). In the sandbox, Google's key is a stand-in key the platform made.",
  })
  @ApiResponse({ status: 200, type: GooglePayTokenizationResponse })
  @ApiErrors('not_found', 'card_not_active')
  async googlePay(
    @CurrentCaller() caller: Caller,
    @Param('cardId', new ResourceIdPipe('crd')) cardId: string,
    @Body() body: GooglePayTokenizationRequestDto,
  ) {
    const { token, opaquePaymentCard } = await this.tokenization.tokenizeForGooglePay(caller, cardId, {
      deviceId: body.deviceId,
      walletAccountId: body.walletAccountId,
    });
    return { opaquePaymentCard, token: renderToken(token) };
  }

  @Post(':cardId/activate-tokenization')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'activateCardTokenization',
    summary: 'Activate a token after the user authenticated with the provider',
    description:
      'The token of this card with that wallet and token reference becomes active; emits ' +
      'cardTokenization.activated. Activating an active token changes nothing and returns it. 404 when the ' +
      'card has no such token; 409 card_not_active while the card is not active; 409 ' +
      'invalid_state_transition for a suspended or deleted token.',
  })
  @ApiResponse({ status: 200, type: TokenResponse })
  @ApiErrors('not_found', 'card_not_active', 'invalid_state_transition')
  async activate(
    @CurrentCaller() caller: Caller,
    @Param('cardId', new ResourceIdPipe('crd')) cardId: string,
    @Body() body: ActivateTokenizationDto,
  ) {
    return renderToken(
      await this.tokenization.activateTokenization(caller, cardId, {
        digitalWalletName: body.digitalWalletName,
        tokenReferenceId: body.tokenReferenceId,
      }),
    );
  }

  @Get(':cardId/tokens')
  @ApiOperation({
    operationId: 'listCardTokens',
    summary: "List a card's digital-wallet tokens",
    description:
      "The card's tokens, newest first by default. A token follows its card: suspended while the card is " +
      'frozen, back to where it was when the card is unfrozen, deleted when the card is revoked.',
  })
  @ApiPageResponse(TokenResponse)
  @ApiErrors('not_found')
  async list(
    @CurrentCaller() caller: Caller,
    @Param('cardId', new ResourceIdPipe('crd')) cardId: string,
    @Query() query: ListQueryDto,
  ) {
    return toPage(
      query,
      await this.tokenization.listCardTokens(caller, cardId, toPageQuery(query)),
      renderToken,
    );
  }
}
