import { Injectable } from '@nestjs/common';
import { AuditedState } from '../../shared/http/audited.interceptor.js';
import { ConcurrencyGroupsService } from '../application/concurrency-groups.service.js';
import { JobsService } from '../application/jobs.service.js';
import { ConcurrencyGroupResponse } from './dto/concurrency-group.dto.js';
import { JobResponse } from './dto/job.response.js';

/** A job as the API shows it, before an audited change (its last run aside: no one changes that). */
@Injectable()
export class AuditedJob extends AuditedState {
  constructor(private readonly jobs: JobsService) {
    super();
  }

  async read(id: string): Promise<object> {
    return JobResponse.from(await this.jobs.get(id), null);
  }
}

/** A concurrency group as the API shows it, before an audited change. */
@Injectable()
export class AuditedConcurrencyGroup extends AuditedState {
  constructor(private readonly groups: ConcurrencyGroupsService) {
    super();
  }

  async read(id: string): Promise<object> {
    return ConcurrencyGroupResponse.from(await this.groups.get(id));
  }
}
