import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { STAFF_ROLES, STAFF_STATUSES, type StaffRole } from '@cip/backoffice/contract';
import { IsSafeText } from '@cip/gateway/http';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { CursorPageQueryDto, ReasonDto } from '../common/operator-dto';

const trimmed = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class StaffResponse {
  @ApiProperty({ example: 'stf-0f8fad5b-d9cb-469f-a165-70867728950e' }) id: string;
  @ApiProperty({ format: 'email' }) email: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: STAFF_ROLES }) role: StaffRole;
  @ApiProperty({ enum: STAFF_STATUSES }) status: string;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'Set while a lockout runs',
  })
  lockedUntil: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class StaffSessionResponse {
  @ApiProperty({ type: StaffResponse }) staff: StaffResponse;
  @ApiProperty({ description: 'Send it as `x-csrf-token` with every change (POST, PUT, PATCH, DELETE)' })
  csrfToken: string;
}

export class SignInDto {
  @ApiProperty({ format: 'email', maxLength: 254 })
  @Transform(trimmed)
  @IsString()
  @MaxLength(254)
  email: string;

  @ApiProperty({ maxLength: 200 })
  @IsString()
  @MaxLength(200)
  password: string;

  @ApiProperty({
    description: 'The 6 digits the authenticator app shows now',
    example: '123456',
    maxLength: 10,
  })
  @IsString()
  @MaxLength(10)
  code: string;
}

class TotpSetup {
  @ApiProperty({ description: 'The TOTP secret, base32 (RFC 6238: SHA-1, 6 digits, 30 s)' }) secret: string;
  @ApiProperty({ description: 'The `otpauth://` URI of the secret' }) uri: string;
}

export class InvitationResponse {
  @ApiProperty({ format: 'email' }) email: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: STAFF_ROLES }) role: StaffRole;
  @ApiProperty({ type: TotpSetup }) totp: TotpSetup;
  @ApiProperty({ format: 'date-time' }) expiresAt: string;
}

export class AcceptInvitationDto {
  @ApiProperty({ minLength: 12, maxLength: 200 })
  @IsString()
  @Length(12, 200)
  password: string;

  @ApiProperty({
    description: 'The current code of the authenticator set up with the invitation',
    example: '123456',
  })
  @IsString()
  @Matches(/^\d{6}$/, { message: 'code must be 6 digits' })
  code: string;
}

export class AcceptedInvitationResponse {
  @ApiProperty({ type: StaffResponse }) staff: StaffResponse;
}

export class InviteStaffDto {
  @ApiProperty({ format: 'email', maxLength: 254 })
  @Transform(trimmed)
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email: string;

  @ApiProperty({ minLength: 1, maxLength: 200 })
  @Transform(trimmed)
  @IsString()
  @Length(1, 200)
  @IsSafeText()
  name: string;

  @ApiProperty({ enum: STAFF_ROLES })
  @IsIn(STAFF_ROLES)
  role: StaffRole;
}

class InvitationLink {
  @ApiProperty({ description: 'The one-time invitation link (72 hours): send it to the person' }) url: string;
  @ApiProperty({ format: 'date-time' }) expiresAt: string;
}

export class InvitedStaffResponse {
  @ApiProperty({ type: StaffResponse }) staff: StaffResponse;
  @ApiProperty({ type: InvitationLink }) invitation: InvitationLink;
}

export class ChangeRoleDto extends ReasonDto {
  @ApiProperty({ enum: STAFF_ROLES })
  @IsIn(STAFF_ROLES)
  role: StaffRole;
}

export class AuditQueryDto extends CursorPageQueryDto {
  @ApiPropertyOptional({ maxLength: 100 }) @IsOptional() @IsString() @MaxLength(100) staffId?: string;
  @ApiPropertyOptional({ maxLength: 200 }) @IsOptional() @IsString() @MaxLength(200) targetId?: string;
  @ApiPropertyOptional({ maxLength: 100 }) @IsOptional() @IsString() @MaxLength(100) userId?: string;
  @ApiPropertyOptional({ maxLength: 100, example: 'key.roll' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  action?: string;
}

class AuditStaff {
  @ApiProperty() id: string;
  @ApiProperty() email: string;
  @ApiProperty({ enum: STAFF_ROLES }) role: StaffRole;
}

class AuditTarget {
  @ApiProperty({ example: 'card' }) type: string;
  @ApiProperty() id: string;
}

export class AuditEntryResponse {
  @ApiProperty({ example: 'aud-0f8fad5b-d9cb-469f-a165-70867728950e' }) id: string;
  @ApiProperty({ format: 'date-time' }) at: string;
  @ApiProperty({ type: AuditStaff }) staff: AuditStaff;
  @ApiProperty({ example: 'key.roll' }) action: string;
  @ApiProperty({ type: 'string', enum: ['sandbox', 'production'], nullable: true }) environment:
    string | null;
  @ApiProperty({ type: AuditTarget }) target: AuditTarget;
  @ApiProperty({ type: 'string', nullable: true }) userId: string | null;
  @ApiProperty({ type: 'string', nullable: true }) reason: string | null;
  @ApiProperty({ enum: ['succeeded', 'refused'] }) outcome: string;
  @ApiProperty({ type: 'string', nullable: true }) errorCode: string | null;
}
