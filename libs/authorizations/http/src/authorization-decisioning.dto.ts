import { DECISIONING_ON_TIMEOUT, DECISIONING_TIMEOUT_MS } from '@cip/authorizations/contract';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsSafeText } from '@cip/gateway/http';

export class ConfigureDecisioningDto {
  @ApiProperty({
    example: 'https://decisions.example.com/card-authorizations',
    description:
      'Your decisioning endpoint. https in production (http is accepted in the sandbox); it must resolve to ' +
      'public addresses only: loopback, private, link-local or cloud metadata addresses are refused.',
  })
  @IsSafeText()
  @MaxLength(2048)
  @IsString()
  url: string;

  @ApiPropertyOptional({
    minimum: DECISIONING_TIMEOUT_MS.min,
    maximum: DECISIONING_TIMEOUT_MS.max,
    default: DECISIONING_TIMEOUT_MS.default,
    description:
      'How long an authorization waits for your answer, in milliseconds. At most 1,500: the card network ' +
      "gives the issuer about 3 s before it stands in, and the platform's own checks and the hold need the rest.",
  })
  @IsOptional()
  @IsInt()
  @Min(DECISIONING_TIMEOUT_MS.min)
  @Max(DECISIONING_TIMEOUT_MS.max)
  timeoutMs?: number;

  @ApiPropertyOptional({
    enum: DECISIONING_ON_TIMEOUT,
    default: 'decline',
    description:
      'What applies when no usable answer comes in time (a timeout, an HTTP error, a malformed body, or your ' +
      'endpoint failing so often that its circuit is open).',
  })
  @IsOptional()
  @IsIn(DECISIONING_ON_TIMEOUT)
  onTimeout?: string;
}

export class AuthorizationDecisioningResponse {
  @ApiProperty({ example: 'https://decisions.example.com/card-authorizations' }) url: string;
  @ApiProperty({ example: 1000, description: 'Milliseconds' }) timeoutMs: number;
  @ApiProperty({ enum: DECISIONING_ON_TIMEOUT }) onTimeout: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class ConfiguredDecisioningResponse extends AuthorizationDecisioningResponse {
  @ApiPropertyOptional({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description:
      'The Standard Webhooks secret that signs the requests (the v1 HMAC-SHA256 signature). Shown only in ' +
      'the response that switched decisioning on; later changes keep it. To rotate it, DELETE and PUT again.',
  })
  secret?: string;
}
