import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ENVIRONMENTS, type Environment } from '@cip/shared/contracts';
import { IsSafeText } from '@cip/gateway/http';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { ReasonDto } from '../common/operator-dto';

const trimmed = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

class ProgramFees {
  @ApiProperty({ description: 'fx fee, a fraction in 6 implied decimals (20000 is 2%)' }) fx: number;
  @ApiProperty({ description: 'fee per cash withdrawal, USD in 6 implied decimals' }) atm: number;
  @ApiProperty({ description: 'fee per authorization, USD in 6 implied decimals' }) auth: number;
}

class ProgramAuthorizationSettings {
  @ApiProperty({ type: ProgramFees }) fees: ProgramFees;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'USD per unit of each merchant currency',
    example: { EUR: '1.08' },
  })
  fxRates: Record<string, string>;
  @ApiProperty({ description: 'a fraction in 6 implied decimals' }) clearingTolerance: number;
  @ApiProperty() holdExpiryDays: number;
  @ApiProperty({ type: 'string', nullable: true }) settlementAddress: string | null;
}

class ProgramThreeDsSettings {
  @ApiProperty({ description: "How long a challenge waits for the distributor's answer" })
  challengeDeadlineSeconds: number;
}

class ProgramResponse {
  @ApiProperty({ type: [String], example: ['FR', 'DE'] }) allowedCountries: string[];
  @ApiProperty() b2b: boolean;
  @ApiProperty() prepaid: boolean;
  @ApiProperty() kycImportEnabled: boolean;
  @ApiPropertyOptional({ type: ProgramAuthorizationSettings, description: 'Absent in a list: the defaults' })
  authorization?: ProgramAuthorizationSettings;
  @ApiPropertyOptional({ type: ProgramThreeDsSettings, description: 'Absent in a list: the defaults' })
  threeDs?: ProgramThreeDsSettings;
}

export class DistributorSummaryResponse {
  @ApiProperty({ example: 'dst-0f8fad5b-d9cb-469f-a165-70867728950e' }) distributorId: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: ProgramResponse }) program: ProgramResponse;
  @ApiProperty() isDefault: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class ApiKeyResponse {
  @ApiProperty({ example: 'key-3f2a9c0b1d4e5f6a7b8c' }) keyId: string;
  @ApiProperty({ enum: ENVIRONMENTS }) environment: Environment;
  @ApiProperty({ description: 'The last four characters of the key' }) last4: string;
  @ApiProperty({ type: 'string', nullable: true }) label: string | null;
  @ApiProperty({ enum: ['active', 'revoked'] }) status: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) revokedAt: string | null;
}

export class DistributorResponse extends DistributorSummaryResponse {
  @ApiProperty({
    enum: ['configured', 'defaults'],
    description: 'Whether the program has authorization settings of its own',
  })
  authorizationSettings: string;
  @ApiProperty({ type: [ApiKeyResponse], description: 'Its API keys, never the key itself' })
  keys: ApiKeyResponse[];
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class IssuedApiKeyResponse {
  @ApiProperty({ type: ApiKeyResponse }) key: ApiKeyResponse;
  @ApiProperty() distributorId: string;
  @ApiProperty({ description: 'The key itself: shown here once, never again (only its hash is kept)' })
  apiKey: string;
}

/**
 * A program's settings as `cli distributors configure` takes them, in the same texts (`2%`, `2.50USD`,
 * `3m`); absent: unchanged. Parsed by the distributors contract's `program-settings`.
 */
export class ConfigureProgramDto {
  @ApiPropertyOptional({ type: [String], description: 'ISO 3166-1 alpha-2 codes', example: ['FR', 'DE'] })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(300)
  @IsString({ each: true })
  @MaxLength(2, { each: true })
  countries?: string[];

  @ApiPropertyOptional() @IsOptional() @IsBoolean() b2b?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() prepaid?: boolean;
  @ApiPropertyOptional({ description: 'KYC import allowed' }) @IsOptional() @IsBoolean() kycImport?: boolean;

  @ApiPropertyOptional({ description: '1m to 10m, in minutes (3m) or seconds (90s)', example: '3m' })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  threeDsDeadline?: string;

  @ApiPropertyOptional({
    description: 'fx fee: a percent (2%) or a fraction in 6 implied decimals (20000)',
    example: '2%',
  })
  @IsOptional()
  @IsString()
  @MaxLength(30)
  feeFx?: string;

  @ApiPropertyOptional({
    description: 'fee per cash withdrawal: USD (2.50USD) or 6 implied decimals',
    example: '2.50USD',
  })
  @IsOptional()
  @IsString()
  @MaxLength(30)
  feeAtm?: string;

  @ApiPropertyOptional({
    description: 'fee per authorization: USD (0.10USD) or 6 implied decimals',
    example: '0.10USD',
  })
  @IsOptional()
  @IsString()
  @MaxLength(30)
  feeAuth?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', nullable: true },
    description: 'USD per unit of a merchant currency (`EUR: "1.08"`); null removes a rate',
    example: { EUR: '1.0856', JPY: null },
  })
  @IsOptional()
  @IsObject()
  fxRates?: Record<string, string | null>;

  @ApiPropertyOptional({
    description: 'how far clearings may exceed the authorization: 15% or 150000',
    example: '15%',
  })
  @IsOptional()
  @IsString()
  @MaxLength(30)
  clearingTolerance?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 30 })
  @IsOptional()
  @IsInt()
  holdExpiryDays?: number;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description: 'EVM address cleared amounts settle to; null removes it',
  })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @MaxLength(100)
  settlementAddress?: string | null;

  @ApiProperty({
    minLength: 1,
    maxLength: 500,
    description: 'Why: a ticket or case reference',
    example: 'TICKET-4211',
  })
  @IsString()
  @Length(1, 500)
  @IsSafeText()
  reason: string;
}

export class CreateDistributorDto extends ConfigureProgramDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @Transform(trimmed)
  @IsString()
  @Length(1, 200)
  @IsSafeText()
  name: string;
}

export class IssueApiKeyDto extends ReasonDto {
  @ApiProperty({ enum: ENVIRONMENTS })
  @IsIn(ENVIRONMENTS)
  environment: Environment;

  @ApiPropertyOptional({ maxLength: 100 })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  @IsSafeText()
  label?: string;
}
