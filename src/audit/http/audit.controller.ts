import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { seesEveryTeam, type Principal } from '../../shared/domain/principal.js';
import { Caller, MinRole, TeamFiltered } from '../../shared/http/access.decorators.js';
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
  @ApiProperty({
    type: Object,
    example: { name: 'nightly-backup', changes: { cronExpression: { before: '0 3 * * *', after: '0 4 * * *' } } },
    description:
      "`name`: the target's name when it has one, as it was then (a deleted job keeps it here). `changes`: for " +
      'a change of a job (update, pause, resume) or of a concurrency group, each field that changed, before and ' +
      "after, as the API shows them. `path.id`: the route's id when the target is another (a run queued for a job).",
  })
  details!: Record<string, unknown>;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'payments',
    description:
      "The team it happened in: a job's, a run's, a channel's or a group's (the one it left, for a move); null " +
      'for what spans the organisation (tokens, teams, people)',
  })
  team!: string | null;
}

class AuditPageResponse {
  @ApiProperty({ type: [AuditEventResponse] })
  items!: AuditEventResponse[];
  @ApiProperty({ type: String, nullable: true, example: null })
  nextCursor!: string | null;
}

/**
 * The teams whose entries the caller reads (undefined: every entry): every team's, and the
 * organisation's own, for whoever sees every team; else those of the teams they administer
 * (narrowed to `only`, when asked).
 */
function auditedTeams(caller: Principal, only?: string): string[] | undefined {
  if (seesEveryTeam(caller)) return only === undefined ? undefined : [only];
  const administered = caller.teams.filter((team) => team.role === 'admin').map((team) => team.name);
  if (only === undefined) return administered;
  return administered.includes(only) ? [only] : [];
}

@ApiTags('audit')
@ApiBearerAuth()
@Controller('audit')
export class AuditController {
  constructor(private readonly audit: AuditLog) {}

  @Get()
  @MinRole('admin')
  @TeamFiltered()
  @ApiOperation({
    summary: 'Changes made through the API, newest first (admin)',
    description:
      'An Orbit admin and an organisation-wide admin token read every change; an admin of some teams, what ' +
      'happened in those teams. Filters combine (all must hold); a `nextCursor` is followed with the same filters.',
  })
  @ApiOkResponse({ type: AuditPageResponse })
  @ApiErrors(400)
  async list(@Query() query: ListAuditQuery, @Caller() caller: Principal): Promise<AuditPageResponse> {
    const page = await this.audit.list(query.toFilter(auditedTeams(caller, query.team)), query.toPageRequest());
    return {
      items: page.items.map((e) => ({ ...e, createdAt: e.createdAt.toISOString() })),
      nextCursor: page.nextCursor,
    };
  }
}
