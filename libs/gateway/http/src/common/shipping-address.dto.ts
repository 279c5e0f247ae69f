import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsSafeText } from './safe-text.decorator';

const COUNTRY = /^[A-Za-z]{2}$/;

/**
 * A postal address as the API takes it wherever one is sent (a user's shipping address, imported identity
 * data, and card shipping next): `state` is at most 12 characters, the card networks' limit.
 */
export class ShippingAddressDto {
  @ApiProperty({ example: '12 rue de la Paix' })
  @IsSafeText()
  @MaxLength(100)
  @IsNotEmpty()
  @IsString()
  addressLine1: string;

  @ApiPropertyOptional({ example: 'Apartment 4' })
  @IsOptional()
  @IsSafeText()
  @MaxLength(100)
  @IsString()
  addressLine2?: string;

  @ApiProperty({ example: 'Paris' })
  @IsSafeText()
  @MaxLength(60)
  @IsNotEmpty()
  @IsString()
  city: string;

  @ApiPropertyOptional({
    example: 'IDF',
    maxLength: 12,
    description: 'At most 12 characters: abbreviate longer regions',
  })
  @IsOptional()
  @IsSafeText()
  @MaxLength(12)
  @IsString()
  state?: string;

  @ApiProperty({ example: '75002' })
  @IsSafeText()
  @MaxLength(16)
  @IsNotEmpty()
  @IsString()
  postalCode: string;

  @ApiProperty({ example: 'FR', description: 'ISO 3166-1 alpha-2' })
  @Matches(COUNTRY, { message: 'country must be a two-letter country code' })
  @IsString()
  country: string;
}
