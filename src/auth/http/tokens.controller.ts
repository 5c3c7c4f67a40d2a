import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { Audited } from '../../shared/http/audited.decorator.js';
import { ListQueryDto } from '../../shared/http/list-query.dto.js';
import { TokensService } from '../application/tokens.service.js';
import type { Principal } from '../../shared/domain/principal.js';
import { Caller, MinRole, PeopleCheckedByRoute, TeamsCheckedByRoute } from '../../shared/http/access.decorators.js';
import { CreatedTokenResponse, CreateTokenDto, TokenPageResponse, TokenResponse } from './dto/token.dto.js';

@ApiTags('tokens')
@ApiBearerAuth()
@MinRole('admin')
@PeopleCheckedByRoute()
@TeamsCheckedByRoute()
@Controller('tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Post()
  @Audited('token.created')
  @ApiOperation({
    summary: "Issue a token: an admin's organisation-wide or team token, or a person's own",
    description:
      'The secret is in this answer only; Orbit keeps a hash. A signed-in person gets a personal token: ' +
      'bound to them and one of their teams, with at most their role there, and an expiry.',
  })
  @ApiCreatedResponse({ type: CreatedTokenResponse })
  @ApiErrors(400, 404)
  async create(@Caller() caller: Principal, @Body() body: CreateTokenDto): Promise<CreatedTokenResponse> {
    const { token, secret } = await this.tokens.create(caller, body);
    return { ...TokenResponse.from(token), token: secret };
  }

  @Get()
  @ApiOperation({ summary: 'List live tokens, newest first, without secrets (admin; a person: their own)' })
  @ApiOkResponse({ type: TokenPageResponse })
  @ApiErrors(400)
  async list(@Caller() caller: Principal, @Query() query: ListQueryDto): Promise<TokenPageResponse> {
    const page = await this.tokens.list(caller, query.toPageRequest());
    return { items: page.items.map((t) => TokenResponse.from(t)), nextCursor: page.nextCursor };
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('token.revoked')
  @ApiOperation({ summary: 'Revoke a token at once, on every node (admin; a person: their own)' })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiErrors(400, 404)
  async revoke(@Caller() caller: Principal, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.tokens.revoke(caller, id);
  }
}
