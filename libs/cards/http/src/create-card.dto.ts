import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { CARD_DELIVERY_TYPES, CARD_TIERS, CARD_TYPES, type CreateCardInput } from '@cip/cards/contract';
import { NestedObject, ShippingAddressDto } from '@cip/gateway/http';
import { SpendingControlsUpdateDto, toSpendingControlsUpdate, USER_ID, USER_ID_MESSAGE } from './cards.dto';

// In a file of its own: it nests the spending controls DTO, which must be defined before it.

export class CreateCardDto {
  @ApiProperty({
    example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10',
    description: 'An active user with a wallet',
  })
  @Matches(USER_ID, { message: USER_ID_MESSAGE })
  @IsString()
  userId: string;

  @ApiProperty({
    enum: CARD_TYPES,
    // The example is the request with every field (the optional ones are for physical cards).
    example: 'physical',
    description: 'virtual: active at once. physical: inactive until shipped and activated',
  })
  @IsIn(CARD_TYPES)
  type: (typeof CARD_TYPES)[number];

  @ApiPropertyOptional({ enum: CARD_TIERS, description: 'Physical cards only; standard when omitted' })
  @IsOptional()
  @IsIn(CARD_TIERS)
  tier?: (typeof CARD_TIERS)[number];

  @ApiPropertyOptional({
    enum: CARD_DELIVERY_TYPES,
    description: "Physical cards only; ship_to_user (to the user's shipping address) when omitted",
  })
  @IsOptional()
  @IsIn(CARD_DELIVERY_TYPES)
  deliveryType?: (typeof CARD_DELIVERY_TYPES)[number];

  @ApiPropertyOptional({
    type: ShippingAddressDto,
    description:
      "Physical cards only: where to ship (state at most 12 characters). Omitted: the user's verified " +
      'shipping address. B2B programs may name any address; other programs only the verified one (else ' +
      '409 shipping_address_required).',
  })
  @IsOptional()
  @NestedObject(() => ShippingAddressDto)
  address?: ShippingAddressDto;

  @ApiPropertyOptional({
    type: SpendingControlsUpdateDto,
    description:
      "The card's spending controls from the start, as PUT /v1/cards/{id}/spending-controls takes them",
  })
  @IsOptional()
  @NestedObject(() => SpendingControlsUpdateDto)
  spendingControls?: SpendingControlsUpdateDto;
}

/** The create request as the cards contract takes it (limit amounts in minor units). */
export function toCreateCardInput(body: CreateCardDto): CreateCardInput {
  const { spendingControls, ...card } = body;
  return {
    ...card,
    ...(spendingControls
      ? { spendingControls: toSpendingControlsUpdate(spendingControls, 'spendingControls.') }
      : {}),
  };
}
