import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { StaffPrincipal } from '@cip/backoffice/contract';
import { StaffService } from '@cip/backoffice/service';
import { ApiErrors } from '@cip/gateway/http';
import type { FastifyReply } from 'fastify';
import { clearSessionCookie, setSessionCookie } from '../access/session-cookie';
import { CurrentStaff, PublicOperatorRoute, StaffAccess } from '../access/staff-access';
import {
  AcceptedInvitationResponse,
  AcceptInvitationDto,
  InvitationResponse,
  SignInDto,
  StaffSessionResponse,
} from './staff.dto';

@ApiTags('Sessions')
@Controller('operator/v1/session')
export class SessionController {
  constructor(@Inject(StaffService) private readonly staff: StaffService) {}

  @Post()
  @HttpCode(200)
  @PublicOperatorRoute()
  @ApiOperation({
    operationId: 'signIn',
    summary: 'Sign in',
    description:
      'Email, password and the current TOTP code (each code works once). Sets the `cip_staff_session` cookie ' +
      '(a fresh session whatever cookie came with the request) and answers the CSRF token. Any wrong value is ' +
      'the same `401 invalid_credentials`; five in a row lock the account for 15 minutes (`423 account_locked`, ' +
      'with `retry-after`).',
  })
  @ApiResponse({ status: 200, type: StaffSessionResponse })
  @ApiErrors('invalid_credentials', 'account_locked', 'csrf_failed')
  async signIn(@Body() body: SignInDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const signedIn = await this.staff.signIn(body);
    setSessionCookie(reply, signedIn.sessionToken);
    return { staff: signedIn.staff, csrfToken: signedIn.csrfToken };
  }

  @Get()
  @StaffAccess('read')
  @ApiOperation({
    operationId: 'getSession',
    summary: 'The signed-in staff member and the CSRF token',
    description:
      'The session of the cookie, and its CSRF token (the same for the whole session). Its idle timer restarts.',
  })
  @ApiResponse({ status: 200, type: StaffSessionResponse })
  current(@CurrentStaff() principal: StaffPrincipal) {
    return this.staff.current(principal);
  }

  @Delete()
  @HttpCode(204)
  @StaffAccess('read')
  @ApiOperation({
    operationId: 'signOut',
    summary: 'Sign out',
    description: 'This session ends and its cookie is cleared; the other sessions of the staff member go on.',
  })
  @ApiResponse({ status: 204, description: 'Signed out' })
  async signOut(@CurrentStaff() principal: StaffPrincipal, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.staff.signOut(principal);
    clearSessionCookie(reply);
  }

  @Post('revoke-all')
  @HttpCode(204)
  @StaffAccess('read')
  @ApiOperation({
    operationId: 'signOutEverywhere',
    summary: 'Sign out everywhere',
    description: 'Every session of the signed-in staff member ends, this one included.',
  })
  @ApiResponse({ status: 204, description: 'Every session ended' })
  async revokeAll(
    @CurrentStaff() principal: StaffPrincipal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.staff.revokeAll(principal);
    clearSessionCookie(reply);
  }
}

@ApiTags('Sessions')
@Controller('operator/v1/invitations')
export class InvitationsController {
  constructor(@Inject(StaffService) private readonly staff: StaffService) {}

  @Get(':token')
  @PublicOperatorRoute()
  @ApiOperation({
    operationId: 'getInvitation',
    summary: 'A pending invitation, with its TOTP secret',
    description:
      'While the invitation is pending (72 hours, until accepted): who it is for, and the TOTP secret to add ' +
      'to an authenticator app. Unknown, used and expired invitations are all `404 not_found`.',
  })
  @ApiResponse({ status: 200, type: InvitationResponse })
  invitation(@Param('token') token: string) {
    return this.staff.invitation(token);
  }

  @Post(':token/accept')
  @HttpCode(200)
  @PublicOperatorRoute()
  @ApiOperation({
    operationId: 'acceptInvitation',
    summary: 'Accept an invitation',
    description:
      'Sets the password (12 to 200 characters) and proves the authenticator with its current code; the ' +
      'account becomes `active`: sign in next. The invitation works once.',
  })
  @ApiResponse({ status: 200, type: AcceptedInvitationResponse })
  @ApiErrors('csrf_failed')
  async accept(@Param('token') token: string, @Body() body: AcceptInvitationDto) {
    return { staff: await this.staff.acceptInvitation(token, body) };
  }
}
