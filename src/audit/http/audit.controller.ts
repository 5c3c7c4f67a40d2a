import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { MinRole } from '../../shared/http/access.decorators.js';
import { AUDITED_ACTIONS } from '../../shared/application/audited-actions.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { AuditLog } from '../application/audit-log.js';
import { ListAuditQuery } from './list-audit.query.js';

class AuditEventResponse {
  @ApiProperty({ format: 'uuid' })
  id!: string;
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z' })
  createdAt!: string;
  @ApiProperty({ example: 'ci', description: "The token's name" })
  actor!: string;
  @ApiProperty({ enum: AUDITED_ACTIONS, example: 'job.created' })
  action!: string;
  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: 'The job, execution or token' })
  targetId!: string | null;
  @ApiProperty({ type: Object, example: {} })
  details!: Record<string, unknown>;
}

class AuditPageResponse {
  @ApiProperty({ type: [AuditEventResponse] })
  items!: AuditEventResponse[];
  @ApiProperty({ type: String, nullable: true, example: null })
  nextCursor!: string | null;
}

@ApiTags('audit')
@ApiBearerAuth()
@Controller('audit')
export class AuditController {
  constructor(private readonly audit: AuditLog) {}

  @Get()
  @MinRole('admin')
  @ApiOperation({
    summary: 'Changes made through the API, newest first (admin)',
    description: 'Filters combine (all must hold); a `nextCursor` is followed with the same filters.',
  })
  @ApiOkResponse({ type: AuditPageResponse })
  @ApiErrors(400)
  async list(@Query() query: ListAuditQuery): Promise<AuditPageResponse> {
    const page = await this.audit.list(query.toFilter(), query.toPageRequest());
    return {
      items: page.items.map((e) => ({ ...e, createdAt: e.createdAt.toISOString() })),
      nextCursor: page.nextCursor,
    };
  }
}
