import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsSafeText, ListQueryDto, NestedObject, PersonName, ShippingAddressDto } from '@cip/gateway/http';
import { USER_STATUSES } from '@cip/users/contract';

const COUNTRY = /^[A-Za-z]{2}$/;

export { ShippingAddressDto };

export class CreateUserDto {
  @ApiProperty({
    example: 'ada@example.com',
    description: 'Unique within your distributor, compared case-insensitively',
  })
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  @IsSafeText()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email: string;

  @PersonName('Ada')
  firstName: string;

  @PersonName('Lovelace')
  lastName: string;

  @ApiProperty({
    example: 'FR',
    description: "ISO 3166-1 alpha-2; must be in the program's allowed countries",
  })
  @Matches(COUNTRY, { message: 'countryOfResidence must be a two-letter country code' })
  @IsString()
  countryOfResidence: string;

  @ApiPropertyOptional({ type: ShippingAddressDto, description: 'B2B distributors only' })
  @IsOptional()
  @NestedObject(() => ShippingAddressDto)
  shippingAddress?: ShippingAddressDto;
}

export class PhoneDto {
  @ApiProperty({ example: '+33', description: 'Prefix: a plus sign and 1 to 4 digits' })
  @Matches(/^\+[0-9]{1,4}$/, { message: 'country must be a plus sign followed by 1 to 4 digits' })
  @IsString()
  country: string;

  @ApiProperty({ example: '612345678', description: 'The number without the prefix' })
  @Matches(/^[0-9]{4,14}$/, { message: 'number must be 4 to 14 digits, without the prefix' })
  @IsString()
  number: string;
}

export class UserListQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: USER_STATUSES })
  @IsOptional()
  @IsIn(USER_STATUSES)
  status?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsEmail()
  email?: string;
}

const ERASED =
  "Null once the user's personal data was erased at the person's request: the user stays a pseudonymous " +
  'record (id, status, country, dates), its status `deleted` or `revoked`.';

export class UserResponse {
  @ApiProperty({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' }) id: string;
  @ApiProperty({ type: String, nullable: true, description: ERASED }) email: string | null;
  @ApiProperty({ type: String, nullable: true, description: ERASED }) firstName: string | null;
  @ApiProperty({ type: String, nullable: true, description: ERASED }) lastName: string | null;
  @ApiProperty() countryOfResidence: string;
  @ApiProperty({ type: PhoneDto, nullable: true, description: `Null until set. ${ERASED}` })
  phone: PhoneDto | null;
  @ApiProperty({ type: ShippingAddressDto, nullable: true, description: `Null until set. ${ERASED}` })
  shippingAddress: ShippingAddressDto | null;
  @ApiProperty({ enum: USER_STATUSES }) status: string;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}
