import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import {
  DECLINED_CODES,
  HOSTED_KYC_TYPES,
  KYC_STATUSES,
  KYC_TYPES,
  RFI_SUBTYPES,
  USER_NOT_ACTIVATED_REASONS,
} from '@cip/kyc/contract';
import { IsSafeText, ListQueryDto, NestedObject, PersonName, ShippingAddressDto } from '@cip/gateway/http';

const USER_ID = /^usr-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class StartKycDto {
  @ApiProperty({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' })
  @Matches(USER_ID, { message: 'userId must be a user id (usr-<uuid>)' })
  @IsString()
  userId: string;

  @ApiProperty({ enum: HOSTED_KYC_TYPES, description: '`import` has its own endpoint (POST /v1/kycs)' })
  @IsIn(HOSTED_KYC_TYPES, { message: `type must be one of ${HOSTED_KYC_TYPES.join(', ')}` })
  type: (typeof HOSTED_KYC_TYPES)[number];

  @ApiPropertyOptional({ enum: RFI_SUBTYPES, description: 'Required when type is rfi, refused otherwise' })
  @IsOptional()
  @IsIn(RFI_SUBTYPES, { message: `rfiSubtype must be one of ${RFI_SUBTYPES.join(', ')}` })
  rfiSubtype?: (typeof RFI_SUBTYPES)[number];
}

export class ImportKycDto {
  @ApiProperty({ example: 'usr-2b1f7a2e-6a3c-4f0e-9d55-0c6b1f1d2a10' })
  @Matches(USER_ID, { message: 'userId must be a user id (usr-<uuid>)' })
  @IsString()
  userId: string;

  @ApiPropertyOptional({ enum: ['import'], description: 'Always import; may be omitted' })
  @IsOptional()
  @IsIn(['import'], { message: 'type must be import on this endpoint' })
  type?: 'import';

  @PersonName('Ada')
  firstName: string;

  @PersonName('Lovelace')
  lastName: string;

  @ApiProperty({ example: '1990-12-10', description: 'YYYY-MM-DD' })
  @Matches(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, {
    message: 'dateOfBirth must be a date as YYYY-MM-DD',
  })
  @IsString()
  dateOfBirth: string;

  @ApiPropertyOptional({
    type: ShippingAddressDto,
    description: 'Residential address as verified; without it the user is not activated (incompleteDetails)',
  })
  @IsOptional()
  @NestedObject(() => ShippingAddressDto)
  address?: ShippingAddressDto;

  @ApiPropertyOptional({ example: 'X1234567' })
  @IsOptional()
  @IsSafeText()
  @MaxLength(40)
  @IsNotEmpty()
  @IsString()
  documentNumber?: string;
}

export class KycListQueryDto extends ListQueryDto {
  @ApiPropertyOptional()
  @IsOptional()
  @Matches(USER_ID, { message: 'userId must be a user id (usr-<uuid>)' })
  userId?: string;

  @ApiPropertyOptional({ enum: KYC_STATUSES })
  @IsOptional()
  @IsIn(KYC_STATUSES)
  status?: (typeof KYC_STATUSES)[number];

  @ApiPropertyOptional({ enum: KYC_TYPES })
  @IsOptional()
  @IsIn(KYC_TYPES)
  type?: (typeof KYC_TYPES)[number];
}

export class SimulateKycDto {
  @ApiPropertyOptional({ enum: DECLINED_CODES, description: 'decline only' })
  @IsOptional()
  @IsIn(DECLINED_CODES, { message: `declinedCode must be one of ${DECLINED_CODES.join(', ')}` })
  declinedCode?: (typeof DECLINED_CODES)[number];
}

class KycAccess {
  @ApiProperty({ description: 'Link the user is sent to; works 14 days from creation or resume' })
  url: string;
}

export class KycResponse {
  @ApiProperty({ example: 'kyc-0d6f3b0e-5b7a-4c43-9a51-53c1b0d1e0aa' }) id: string;
  @ApiProperty() userId: string;
  @ApiProperty({ enum: KYC_TYPES }) type: string;
  @ApiProperty({ enum: KYC_STATUSES }) status: string;
  @ApiProperty({ example: 'sandbox-idv' }) provider: string;
  @ApiProperty({ description: "The provider's reference of the verification (changes on resume)" })
  referenceId: string;
  @ApiPropertyOptional({ enum: RFI_SUBTYPES, description: 'rfi only' }) rfiSubtype?: string;
  @ApiPropertyOptional({ enum: DECLINED_CODES, description: 'declined only' }) declinedCode?: string;
  @ApiPropertyOptional({ description: 'verified only: whether the user is active after this verification' })
  userActivated?: boolean;
  @ApiPropertyOptional({
    enum: USER_NOT_ACTIVATED_REASONS,
    description: 'verified only: why activation was skipped',
  })
  userNotActivatedReason?: string;
  @ApiPropertyOptional({ description: 'Hosted KYCs: when the current link stops working' })
  linkExpiresAt?: string;
  @ApiProperty({
    type: KycAccess,
    nullable: true,
    description: 'Present while the link works (pending, not expired)',
  })
  access: KycAccess | null;
  @ApiProperty() createdAt: string;
  @ApiProperty() updatedAt: string;
}
