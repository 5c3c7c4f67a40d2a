import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { MinRole } from '../../shared/http/access.decorators.js';
import { ConcurrencyGroupsService } from '../application/concurrency-groups.service.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { Audited } from '../../shared/http/audited.decorator.js';
import {
  ConcurrencyGroupListResponse,
  ConcurrencyGroupResponse,
  CreateConcurrencyGroupDto,
  UpdateConcurrencyGroupDto,
} from './dto/concurrency-group.dto.js';
import { AuditedConcurrencyGroup } from './audited-states.js';

/** Concurrency groups (admin): limits shared by the jobs that name them. */
@ApiTags('concurrency-groups')
@ApiBearerAuth()
@MinRole('admin')
@Controller('concurrency-groups')
export class ConcurrencyGroupsController {
  constructor(private readonly groups: ConcurrencyGroupsService) {}

  @Post()
  @Audited('concurrency-group.created')
  @ApiOperation({ summary: 'Create a concurrency group: a limit shared by the jobs that name it (admin)' })
  @ApiCreatedResponse({ type: ConcurrencyGroupResponse })
  @ApiErrors(400, 409)
  async create(@Body() body: CreateConcurrencyGroupDto): Promise<ConcurrencyGroupResponse> {
    return ConcurrencyGroupResponse.from(await this.groups.create(body));
  }

  @Get()
  @ApiOperation({ summary: 'Every concurrency group, by name (admin)' })
  @ApiOkResponse({ type: ConcurrencyGroupListResponse })
  @ApiErrors()
  async list(): Promise<ConcurrencyGroupListResponse> {
    return { items: (await this.groups.list()).map(ConcurrencyGroupResponse.from) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a concurrency group (admin)' })
  @ApiOkResponse({ type: ConcurrencyGroupResponse })
  @ApiErrors(400, 404)
  async get(@Param('id', ParseUUIDPipe) id: string): Promise<ConcurrencyGroupResponse> {
    return ConcurrencyGroupResponse.from(await this.groups.get(id));
  }

  @Patch(':id')
  @Audited('concurrency-group.updated', AuditedConcurrencyGroup)
  @ApiOperation({
    summary: 'Change the limit or the name (admin)',
    description: 'A new limit holds from the next claim on. A rename is refused (409) while jobs name the group.',
  })
  @ApiOkResponse({ type: ConcurrencyGroupResponse })
  @ApiErrors(400, 404, 409)
  async update(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: UpdateConcurrencyGroupDto,
  ): Promise<ConcurrencyGroupResponse> {
    return ConcurrencyGroupResponse.from(await this.groups.update(id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @Audited('concurrency-group.deleted', AuditedConcurrencyGroup)
  @ApiOperation({ summary: 'Delete a concurrency group (admin)', description: 'Refused (409) while jobs name it.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(400, 404, 409)
  async remove(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    await this.groups.remove(id);
  }
}
