import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, Caller, CurrentCaller, ResourceIdPipe, toPage, toPageQuery } from '@cip/gateway/http';
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
    summary: 'Create a user',
    description: '409 duplicate_user_error when the email is already used within your distributor.',
  })
  @ApiResponse({ status: 201, type: UserResponse })
  @ApiErrors(400, 401, 403, 409, 422, 429)
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
  @ApiOperation({ summary: 'List users' })
  @ApiErrors(400, 401, 429)
  async list(@CurrentCaller() caller: Caller, @Query() query: UserListQueryDto) {
    const result = await this.users.listUsers(
      caller,
      { status: query.status, email: query.email },
      toPageQuery(query),
    );
    return toPage(query, result, renderUser);
  }

  @Get(':userId')
  @ApiOperation({ summary: 'Retrieve a user' })
  @ApiResponse({ status: 200, type: UserResponse })
  @ApiErrors(401, 404, 429)
  async get(@CurrentCaller() caller: Caller, @Param('userId', new ResourceIdPipe('usr')) userId: string) {
    return renderUser(await this.users.getUser(caller, userId));
  }

  @Put(':userId/phone')
  @ApiOperation({
    summary: "Set the user's phone",
    description:
      'Call once the phone is verified in your flow. Emits user.phoneNumberSet. 409 when another user has it.',
  })
  @ApiResponse({ status: 200, type: UserResponse })
  @ApiErrors(400, 401, 404, 409, 429)
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
  @ApiOperation({ summary: "Change the user's shipping address (B2B distributors only)" })
  @ApiResponse({ status: 200, type: UserResponse })
  @ApiErrors(400, 401, 403, 404, 409, 429)
  async setShippingAddress(
    @CurrentCaller() caller: Caller,
    @Param('userId', new ResourceIdPipe('usr')) userId: string,
    @Body() body: ShippingAddressDto,
  ) {
    return renderUser(await this.users.updateShippingAddress(caller, userId, { ...body }));
  }
}
