import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { resourceIdPattern } from '@cip/gateway/http';
import {
  ACTIVATION_METHODS,
  DIGITAL_WALLET_NAMES,
  PROVISIONING_METHODS,
  TOKEN_STATUSES,
} from '@cip/tokenization/contract';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64_MESSAGE = '$property must be standard base64';
/** Wallet, device and token references: printable identifiers, no spaces. */
const REFERENCE = /^[A-Za-z0-9._:-]+$/;
const REFERENCE_MESSAGE = '$property must be letters, digits, ".", "_", ":" or "-"';

export class ApplePayTokenizationRequestDto {
  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: 3,
    description:
      "The certificate chain PKAddPaymentPassViewController's delegate received, leaf first, each base64 DER",
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  @IsString({ each: true })
  @MaxLength(8192, { each: true })
  @Matches(BASE64, { each: true, message: 'each of certificates must be standard base64 DER' })
  certificates: string[];

  @ApiProperty({ example: 'obLD1A==', maxLength: 256, description: "Apple's nonce, base64" })
  @IsString()
  @MaxLength(256)
  @Matches(BASE64, { message: BASE64_MESSAGE })
  nonce: string;

  @ApiProperty({ maxLength: 4096, description: "The device's signature of the nonce, base64" })
  @IsString()
  @MaxLength(4096)
  @Matches(BASE64, { message: BASE64_MESSAGE })
  nonceSignature: string;
}

export class GooglePayTokenizationRequestDto {
  @ApiProperty({
    example: 'WmWdIOZ8mXuQUhN9xYWkw8Z3',
    maxLength: 128,
    description: 'TapAndPay getStableHardwareId',
  })
  @IsString()
  @MaxLength(128)
  @Matches(REFERENCE, { message: REFERENCE_MESSAGE })
  deviceId: string;

  @ApiProperty({
    example: 'Hf0cNUd-X5Fh1i5uLqRh2Q',
    maxLength: 128,
    description: 'TapAndPay getActiveWalletId',
  })
  @IsString()
  @MaxLength(128)
  @Matches(REFERENCE, { message: REFERENCE_MESSAGE })
  walletAccountId: string;
}

export class ActivateTokenizationDto {
  @ApiProperty({ enum: DIGITAL_WALLET_NAMES })
  @IsIn(DIGITAL_WALLET_NAMES)
  digitalWalletName: (typeof DIGITAL_WALLET_NAMES)[number];

  @ApiProperty({
    example: 'DNITHE3A9C1F0B27D45E86C1D2E3F4A5',
    maxLength: 64,
    description: "The token service's reference of the token, as the wallet reported it",
  })
  @IsString()
  @MaxLength(64)
  @Matches(REFERENCE, { message: REFERENCE_MESSAGE })
  tokenReferenceId: string;
}

export class SimulateTokenizationDto {
  @ApiProperty({ example: 'crd-7c9e6679-7425-40de-944b-e07fc1f90ae7' })
  @IsString()
  @Matches(resourceIdPattern('crd'), { message: 'cardId must be a card id (crd-<uuid>)' })
  cardId: string;

  @ApiProperty({ enum: DIGITAL_WALLET_NAMES })
  @IsIn(DIGITAL_WALLET_NAMES)
  digitalWalletName: (typeof DIGITAL_WALLET_NAMES)[number];

  @ApiPropertyOptional({
    enum: ACTIVATION_METHODS,
    description:
      'How the user asked to receive the activation code (applePay and googlePay only). Omitted: the token ' +
      'service activates the token without one.',
  })
  @IsOptional()
  @IsIn(ACTIVATION_METHODS)
  activationMethod?: (typeof ACTIVATION_METHODS)[number];
}

export class TokenResponse {
  @ApiProperty({ example: 'tkn-3f2a1c7e-9b4d-4e8f-a6c5-2d1b0e9f8a7c' }) id: string;
  @ApiProperty({ example: 'crd-7c9e6679-7425-40de-944b-e07fc1f90ae7' }) cardId: string;
  @ApiProperty({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' }) userId: string;
  @ApiProperty({ enum: DIGITAL_WALLET_NAMES }) digitalWalletName: string;
  @ApiProperty({ example: 'DNITHE3A9C1F0B27D45E86C1D2E3F4A5' }) tokenReferenceId: string;
  @ApiProperty({
    enum: PROVISIONING_METHODS,
    description:
      'push: from your app (the tokenization endpoints); manual: card details typed into the wallet',
  })
  provisioning: string;
  @ApiProperty({
    enum: TOKEN_STATUSES,
    description:
      'pending_activation until the user authenticates with the provider; active; suspended while the card ' +
      'is not active (frozen), back to where it was when the card is; deleted once the card is revoked (terminal)',
  })
  status: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class ApplePayTokenizationResponse {
  @ApiProperty({ description: 'base64; pass to PKAddPaymentPassRequest.activationData' })
  activationData: string;
  @ApiProperty({
    description: 'base64 IV || AES-256-GCM ciphertext || tag; PKAddPaymentPassRequest.encryptedPassData',
  })
  encryptedPassData: string;
  @ApiProperty({ description: 'base64 uncompressed P-256 point; PKAddPaymentPassRequest.ephemeralPublicKey' })
  ephemeralPublicKey: string;
  @ApiProperty({ type: TokenResponse, description: 'The token this provisioning will activate' })
  token: TokenResponse;
}

export class GooglePayTokenizationResponse {
  @ApiProperty({
    description: 'base64 OpenPGP message; pass to the TapAndPay pushTokenize request as the OPC',
  })
  opaquePaymentCard: string;
  @ApiProperty({ type: TokenResponse, description: 'The token this provisioning will activate' })
  token: TokenResponse;
}
