import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { CARD_STATUSES, CARD_TYPES } from '@cip/cards/contract';
import { ListQueryDto } from '@cip/gateway/http';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const USER_ID = new RegExp(`^usr-${UUID}$`);
const USER_ID_MESSAGE = 'userId must be a user id (usr-<uuid>)';

export class CreateCardDto {
  @ApiProperty({
    example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10',
    description: 'An active user with a wallet',
  })
  @Matches(USER_ID, { message: USER_ID_MESSAGE })
  @IsString()
  userId: string;

  @ApiProperty({ enum: CARD_TYPES, description: 'Virtual cards only so far; they are active at once' })
  @IsIn(CARD_TYPES)
  type: (typeof CARD_TYPES)[number];
}

export class CardListQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' })
  @IsOptional()
  @Matches(USER_ID, { message: USER_ID_MESSAGE })
  userId?: string;

  @ApiPropertyOptional({ enum: CARD_STATUSES })
  @IsOptional()
  @IsIn(CARD_STATUSES)
  status?: (typeof CARD_STATUSES)[number];
}

export class CardResponse {
  @ApiProperty({ example: 'crd-7c9e6679-7425-40de-944b-e07fc1f90ae7' }) id: string;
  @ApiProperty({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' }) userId: string;
  @ApiProperty({
    example: 'wlt-5d0c8f53-8a8e-5f43-9a0b-1f3c4e5d6a7b',
    description: 'The wallet it spends from',
  })
  walletId: string;
  @ApiProperty({ enum: CARD_TYPES }) type: string;
  @ApiProperty({ enum: CARD_STATUSES, description: 'Spec part 3; revoked is terminal' }) status: string;
  @ApiProperty({ example: '40000099', description: 'The issuer BIN the card number starts with' })
  bin: string;
  @ApiProperty({ example: '4242', description: 'The last four digits of the card number' }) last4: string;
  @ApiProperty({
    example: '400000******4242',
    description: 'The first six and last four digits; the full number and the CVV are never returned',
  })
  maskedPan: string;
  @ApiProperty({ example: 11, minimum: 1, maximum: 12 }) expMonth: number;
  @ApiProperty({ example: 2029 }) expYear: number;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}
