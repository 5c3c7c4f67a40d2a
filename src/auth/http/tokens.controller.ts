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
import { MinRole } from '../../shared/http/access.decorators.js';
import { CreatedTokenResponse, CreateTokenDto, TokenPageResponse, TokenResponse } from './dto/token.dto.js';

@ApiTags('tokens')
@ApiBearerAuth()
@MinRole('admin')
@Controller('tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Post()
  @Audited('token.created')
  @ApiOperation({
    summary: 'Issue a token (admin)',
    description: 'The secret is in this answer only; Orbit keeps a hash.',
  })
  @ApiCreatedResponse({ type: CreatedTokenResponse })
  @ApiErrors(400)
  async create(@Body() body: CreateTokenDto): Promise<CreatedTokenResponse> {
    const { token, secret } = await this.tokens.issue(body.name, body.role);
    return { ...TokenResponse.from(token), token: secret };
  }

  @Get()
  @ApiOperation({ summary: 'List live tokens, newest first, without secrets (admin)' })
  @ApiOkResponse({ type: TokenPageResponse })
  @ApiErrors(400)
  async list(@Query() query: ListQueryDto): Promise<TokenPageResponse> {
    const page = await this.tokens.list(query.toPageRequest());
    return { items: page.items.map((t) => TokenResponse.from(t)), nextCursor: page.nextCursor };
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('token.revoked')
  @ApiOperation({ summary: 'Revoke a token at once, on every node (admin)' })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiErrors(400, 404)
  async revoke(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.tokens.revoke(id);
  }
}
