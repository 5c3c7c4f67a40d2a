import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { TeamOwners } from '../../shared/application/team-owners.js';
import { actorName, teamsToShow, visibleTeams, type Principal } from '../../shared/domain/principal.js';
import { Caller, MinRole, NewInTeam, OwnedBy, OwningTeam, TeamFiltered } from '../../shared/http/access.decorators.js';
import { EmptyBodyDto } from '../../shared/http/empty-body.dto.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { Audited } from '../../shared/http/audited.decorator.js';
import { mayMoveTo } from '../../shared/http/team-move.js';
import { JobRuns } from '../application/job-runs.js';
import { JobsService } from '../application/jobs.service.js';
import { Job } from '../domain/job.js';
import { CreateJobDto } from './dto/create-job.dto.js';
import { JobPageResponse, JobResponse, JobStatsResponse } from './dto/job.response.js';
import { ListJobsQuery } from './dto/list-jobs.query.js';
import { NEXT_RUNS, NextRunsQuery } from './dto/next-runs.query.js';
import { NextRunsResponse } from './dto/next-runs.response.js';
import { PauseJobDto } from './dto/pause-job.dto.js';
import { RECENT_RUNS, RecentRunsQuery } from './dto/recent-runs.query.js';
import { RecentRunResponse, RecentRunsResponse } from './dto/recent-runs.response.js';
import { STATS_HOURS, StatsQuery } from './dto/stats.query.js';
import { UpdateJobDto } from './dto/update-job.dto.js';
import { AuditedJob } from './audited-states.js';

/** The jobs resource. Every answer about a job carries its last run, read through JobRuns. */
@ApiTags('jobs')
@ApiBearerAuth()
@Controller('jobs')
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly runs: JobRuns,
    private readonly owners: TeamOwners,
  ) {}

  @Post()
  @NewInTeam()
  @Audited('job.created')
  @ApiOperation({ summary: "Define a job (admin of the job's team)" })
  @ApiCreatedResponse({ type: JobResponse })
  @ApiErrors(400, 404, 409)
  async create(
    @Body() { team: _team, ...body }: CreateJobDto,
    @OwningTeam() team: string,
    @Caller() caller: Principal,
  ): Promise<JobResponse> {
    const job = await this.jobs.create(body, team, visibleTeams(caller) ?? undefined);
    return JobResponse.from(job, null); // a new job has no execution yet
  }

  @Get()
  @TeamFiltered()
  @ApiOperation({ summary: "List the jobs of the caller's teams, newest first" })
  @ApiOkResponse({ type: JobPageResponse })
  @ApiErrors(400)
  async list(@Query() query: ListJobsQuery, @Caller() caller: Principal): Promise<JobPageResponse> {
    const failing = query.failing === undefined ? undefined : await this.runs.failingJobIds();
    const onlyFailing = query.failing === true ? failing : undefined;
    const page = await this.jobs.list(
      {
        enabled: query.enabled,
        nameContains: query.name,
        ids: query.ids && onlyFailing ? query.ids.filter((id) => onlyFailing.includes(id)) : (query.ids ?? onlyFailing),
        exceptIds: query.failing === false ? failing : undefined,
        teams: teamsToShow(caller, query.team),
      },
      query.toPageRequest(),
    );
    return { items: await this.withLastExecutions(page.items), nextCursor: page.nextCursor };
  }

  @Get('recent-runs')
  @TeamFiltered()
  @ApiOperation({
    summary: 'The last runs that ended of some jobs, with their durations and success rate',
    description:
      'For each job named (a page of the list, or one job for a chart): its newest `count` runs that ended, ' +
      'newest first by creation (as its list of runs shows them), and the share of them that succeeded. ' +
      'Ids of unknown jobs answer no runs.',
  })
  @ApiOkResponse({ type: RecentRunsResponse })
  @ApiErrors(400)
  async recentRuns(@Query() query: RecentRunsQuery, @Caller() caller: Principal): Promise<RecentRunsResponse> {
    const teams = visibleTeams(caller);
    const ids = teams
      ? (await this.jobs.list({ ids: query.ids, teams }, { limit: query.ids.length })).items.map((job) => job.id)
      : query.ids;
    const items = await this.runs.recentRuns(ids, query.count ?? RECENT_RUNS.default);
    return { items: items.map((item) => ({ ...item, runs: item.runs.map(RecentRunResponse.from) })) };
  }

  @Get(':id')
  @OwnedBy('job')
  @ApiOperation({ summary: 'Read a job' })
  @ApiOkResponse({ type: JobResponse })
  @ApiErrors(400, 404)
  async get(@Param('id', ParseUUIDPipe) id: string): Promise<JobResponse> {
    return this.withLastExecution(await this.jobs.get(id));
  }

  @Patch(':id')
  @OwnedBy('job')
  @Audited('job.updated', AuditedJob)
  @ApiOperation({
    summary: "Change some fields of a job, same rules as create (admin of the job's team)",
    description: '`team` moves the job, its runs and history to another team: it needs the admin role in both.',
  })
  @ApiOkResponse({ type: JobResponse })
  @ApiErrors(400, 404, 409)
  async update(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() { team, ...body }: UpdateJobDto,
    @Caller() caller: Principal,
  ): Promise<JobResponse> {
    if (team !== undefined) await mayMoveTo(caller, team, 'a job', this.owners);
    return this.withLastExecution(await this.jobs.update(id, body, team, visibleTeams(caller) ?? undefined));
  }

  @Post(':id/pause')
  @OwnedBy('job')
  @HttpCode(200)
  @MinRole('operator')
  @Audited('job.paused', AuditedJob)
  @ApiOperation({
    summary: 'Pause a job, with a note and an optional instant at which it resumes by itself (operator)',
    description:
      'The schedule stops (runs already queued still run). `resumeAt` must be in the future and at most a year ' +
      'ahead; at that instant the scheduler resumes the job (job.resumed). Pausing a paused job replaces its note ' +
      'and resume instant. PATCH `enabled: false` is a pause without either.',
  })
  @ApiOkResponse({ type: JobResponse })
  @ApiErrors(400, 404, 409)
  async pause(@Param('id', ParseUUIDPipe) id: string, @Body() body: PauseJobDto): Promise<JobResponse> {
    const resumeAt = body.resumeAt === undefined ? null : new Date(body.resumeAt);
    return this.withLastExecution(await this.jobs.pause(id, body.note ?? null, resumeAt));
  }

  @Post(':id/resume')
  @OwnedBy('job')
  @HttpCode(200)
  @MinRole('operator')
  @Audited('job.resumed', AuditedJob)
  @ApiOperation({
    summary: 'Resume a paused job now (operator)',
    description:
      'The schedule starts again from now: the slots passed while paused do not fire. The note and the resume ' +
      'instant are cleared. A job that runs is answered as it is.',
  })
  @ApiOkResponse({ type: JobResponse })
  @ApiErrors(400, 404, 409)
  async resume(@Param('id', ParseUUIDPipe) id: string, @Body() _body: EmptyBodyDto): Promise<JobResponse> {
    return this.withLastExecution(await this.jobs.resume(id));
  }

  @Delete(':id')
  @OwnedBy('job')
  @HttpCode(204)
  @Audited('job.deleted', AuditedJob)
  @ApiOperation({
    summary: 'Delete a job (admin)',
    description:
      'Refused (409) while one of its executions runs. Its queued executions are cancelled; its history stays readable.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(400, 404, 409)
  async remove(@Param('id', ParseUUIDPipe) id: string, @Caller() caller: Principal): Promise<void> {
    await this.jobs.remove(id, actorName(caller));
  }

  @Get(':id/next-runs')
  @OwnedBy('job')
  @ApiOperation({ summary: 'The next fire times of a job, in its time zone' })
  @ApiOkResponse({ type: NextRunsResponse })
  @ApiErrors(400, 404)
  async nextRuns(@Param('id', ParseUUIDPipe) id: string, @Query() query: NextRunsQuery): Promise<NextRunsResponse> {
    const runs = await this.jobs.nextRuns(id, query.count ?? NEXT_RUNS.default);
    return { runs: runs.map((d) => d.toISOString()) };
  }

  @Get(':id/stats')
  @OwnedBy('job')
  @ApiOperation({
    summary: 'How the recent executions of a job went',
    description:
      'Over the executions of the job created in the last `hours` hours (default 24): how many are in each ' +
      'status, and the median and 95th percentile of how long the finished ones ran (start to finish).',
  })
  @ApiOkResponse({ type: JobStatsResponse })
  @ApiErrors(400, 404)
  async stats(@Param('id', ParseUUIDPipe) id: string, @Query() query: StatsQuery): Promise<JobStatsResponse> {
    return JobStatsResponse.from(await this.runs.stats(id, query.hours ?? STATS_HOURS.default));
  }

  /** Jobs as answered: each with its most recent execution, read for all of them in one query. */
  private async withLastExecutions(jobs: Job[]): Promise<JobResponse[]> {
    const last = await this.runs.lastExecutions(jobs.map((job) => job.id));
    return jobs.map((job) => JobResponse.from(job, last.get(job.id) ?? null));
  }

  private async withLastExecution(job: Job): Promise<JobResponse> {
    const [response] = await this.withLastExecutions([job]);
    return response ?? JobResponse.from(job, null);
  }
}
