import { ApiProperty } from '@nestjs/swagger';
import { Cancellation, CANCELLATION_SOURCES } from '../../application/cancellations.js';

export class CancellationResponse {
  @ApiProperty({ format: 'uuid', example: '5c3b0c55-9f8e-4a51-8f0e-2b1f7f7e2a11' })
  executionId!: string;
  @ApiProperty({ example: '2026-11-30T10:00:05.000Z', description: "When it was cancelled (the run's finishedAt)" })
  at!: string;
  @ApiProperty({
    enum: CANCELLATION_SOURCES,
    example: 'caller',
    description:
      '`caller`: a call of POST /executions/:id/cancel; `job_deletion`: its job was deleted while the run was ' +
      'queued; `scheduler`: no request did it, Orbit did: the scheduler cancels the earlier run of a REPLACE job ' +
      'when the next slot fires (`replacedBy`); `unknown`: none of these shows, as in the moment between a cancel ' +
      'and its entry in the audit trail, for a run cancelled before runs kept who cancelled them: ask again',
  })
  by!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'ops-alice',
    description:
      'The name of the token that cancelled it, or that deleted its job (as the run keeps it, or for an older run ' +
      'as the audit trail recorded it); null when Orbit did it, or neither says',
  })
  actor!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uuid',
    example: null,
    description: "The scheduler's: the run of the job's next slot, which replaced it",
  })
  replacedBy!: string | null;

  static from(cancellation: Cancellation): CancellationResponse {
    return { ...cancellation, at: cancellation.at.toISOString() };
  }
}
