import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import {
  ApiErrors,
  ApiPageResponse,
  Caller,
  CurrentCaller,
  ResourceIdPipe,
  toPage,
  toPageQuery,
} from '@cip/gateway/http';
import { renderUser, USERS_API, UsersApi } from '@cip/users/contract';
import type { FastifyReply } from 'fastify';
import { CreateUserDto, PhoneDto, ShippingAddressDto, UserListQueryDto, UserResponse } from './users.dto';

@ApiTags('Users')
@Controller('v1/users')
export class UsersController {
  constructor(@Inject(USERS_API) private readonly users: UsersApi) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createUser',
    summary: 'Create a user',
    description: '409 duplicate_user_error when the email is already used within your distributor.',
  })
  @ApiResponse({ status: 201, type: UserResponse })
  @ApiErrors('forbidden', 'duplicate_user_error', 'country_not_allowed')
  async create(
    @CurrentCaller() caller: Caller,
    @Body() body: CreateUserDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const user = await this.users.createUser(caller, body);
    reply.header('location', `/v1/users/${user.id}`);
    return renderUser(user);
  }

  @Get()
  @ApiOperation({
    operationId: 'listUsers',
    summary: 'List users',
    description: 'Your users in this environment, newest first by default. Filters: status, email.',
  })
  @ApiPageResponse(UserResponse)
  async list(@CurrentCaller() caller: Caller, @Query() query: UserListQueryDto) {
    const result = await this.users.listUsers(
      caller,
      { status: query.status, email: query.email },
      toPageQuery(query),
    );
    return toPage(query, result, renderUser);
  }

  @Get(':userId')
  @ApiOperation({
    operationId: 'getUser',
    summary: 'Retrieve a user',
    description: 'The user as it is now, including what the last write changed (read-your-writes).',
  })
  @ApiResponse({ status: 200, type: UserResponse })
  async get(@CurrentCaller() caller: Caller, @Param('userId', new ResourceIdPipe('usr')) userId: string) {
    return renderUser(await this.users.getUser(caller, userId));
  }

  @Put(':userId/phone')
  @ApiOperation({
    operationId: 'setUserPhone',
    summary: "Set the user's phone",
    description:
      'Call once the phone is verified in your flow. Emits user.phoneNumberSet. 409 when another user has it.',
  })
  @ApiResponse({ status: 200, type: UserResponse })
  @ApiErrors('duplicate_user_error', 'invalid_state_transition')
  async setPhone(
    @CurrentCaller() caller: Caller,
    @Param('userId', new ResourceIdPipe('usr')) userId: string,
    @Body() body: PhoneDto,
  ) {
    return renderUser(
      await this.users.setPhone(caller, userId, { country: body.country, number: body.number }),
    );
  }

  @Put(':userId/shipping-address')
  @ApiOperation({
    operationId: 'setUserShippingAddress',
    summary: "Change the user's shipping address (B2B distributors only)",
    description:
      'Emits user.shippingAddressUpdated. Other distributors get 403 forbidden: a KYC of type shipping sets it.',
  })
  @ApiResponse({ status: 200, type: UserResponse })
  @ApiErrors('forbidden', 'invalid_state_transition')
  async setShippingAddress(
    @CurrentCaller() caller: Caller,
    @Param('userId', new ResourceIdPipe('usr')) userId: string,
    @Body() body: ShippingAddressDto,
  ) {
    return renderUser(await this.users.updateShippingAddress(caller, userId, { ...body }));
  }
}
