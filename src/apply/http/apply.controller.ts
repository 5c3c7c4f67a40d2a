import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { actorName, type Principal } from '../../shared/domain/principal.js';
import { Caller, MinRole } from '../../shared/http/access.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { Audited } from '../../shared/http/audited.decorator.js';
import { ApplyService } from '../application/apply.service.js';
import { ApplyRequestDto, ApplyResponse } from './dto/apply.dto.js';
import { entriesOf, OrbitFileDto } from './dto/orbit-file.dto.js';

/** Jobs as code: an orbit file applied in one transaction (admin, as the writes it makes). */
@ApiTags('apply')
@ApiBearerAuth()
@Controller()
export class ApplyController {
  constructor(private readonly service: ApplyService) {}

  @Post('apply')
  @HttpCode(200)
  @Audited('file.applied')
  @ApiOperation({
    summary: 'Make Orbit match an orbit file, in one transaction (admin)',
    description:
      'Creates and updates the channels and jobs the file names (the jobs take the defaults for the fields ' +
      'they leave out) and, with prune, deletes the jobs an earlier apply created that it no longer names. ' +
      'Answers the plan. All or nothing: a refused entry is a 400 (or 409) naming it and its field, and ' +
      'nothing is changed. dryRun answers the same plan, with the same refusals, and changes nothing. ' +
      'The schema of the file: GET /schemas/orbit-file.json.',
  })
  @ApiOkResponse({ type: ApplyResponse })
  @ApiErrors(400, 409)
  async apply(@Body() body: ApplyRequestDto, @Caller() caller: Principal): Promise<ApplyResponse> {
    const dryRun = body.dryRun ?? false;
    const prune = body.prune ?? false;
    const items = await this.service.apply(entriesOf(body.file), { dryRun, prune, actor: actorName(caller) });
    return { dryRun, items };
  }

  @Get('orbit-file')
  @MinRole('admin')
  @ApiOperation({
    summary: 'The channels and jobs as an orbit file (admin: it describes the channels)',
    description:
      'What POST /apply takes, and would leave unchanged. Jobs list the fields that differ from the defaults; ' +
      "channels' secrets and URLs are never answered: they are ${ORBIT_CHANNEL_<NAME>_URL} and _SECRET placeholders.",
  })
  @ApiOkResponse({ type: OrbitFileDto })
  @ApiErrors()
  async current(): Promise<OrbitFileDto> {
    return this.service.current();
  }
}
