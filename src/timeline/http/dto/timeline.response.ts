import { ApiProperty } from '@nestjs/swagger';
import { isoTime } from '../../../shared/http/iso-time.js';
import type { Timeline } from '../../application/timeline.service.js';
import { SLOT_FATES, SLOT_REASONS, SlotRecord } from '../../domain/slot-fates.js';

export class RunRefResponse {
  @ApiProperty({ example: '5c3b0c55-9f8e-4a51-8f0e-2b1f7f7e2a11', format: 'uuid' })
  id!: string;
  @ApiProperty({ example: 'SUCCEEDED', description: 'Its status now (fired) or when the slot was skipped (skipped)' })
  status!: string;
}

export class MissedEpisodeResponse {
  @ApiProperty({
    enum: ['RUN_ONCE', 'SKIP'],
    description: 'RUN_ONCE: the missed slots collapsed into one run of the latest; SKIP: dropped',
  })
  policy!: string;
  @ApiProperty({ example: 10, description: 'Slots missed in the episode (at least this many when countCapped)' })
  count!: number;
  @ApiProperty({ example: false })
  countCapped!: boolean;
  @ApiProperty({ example: '2026-11-30T10:01:00.000Z' })
  firstSlot!: string;
  @ApiProperty({ example: '2026-11-30T10:10:00.000Z' })
  lastSlot!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '2026-11-30T10:11:00.000Z',
    description: 'RUN_ONCE: the slot that fired instead; SKIP: null',
  })
  firedSlot!: string | null;
}

export class LateNoticeResponse {
  @ApiProperty({ example: '2026-11-30T10:01:30.000Z', description: 'When it was found late' })
  at!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'What the notice adds' })
  detail!: Record<string, unknown> | null;
}

export class TimelineSlotResponse {
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z' })
  slot!: string;
  @ApiProperty({
    enum: SLOT_FATES,
    example: 'fired',
    description:
      'fired: an execution ran for it (`execution`). skipped: FORBID let it go while an earlier run was active ' +
      '(`activeExecution`). missed: no scheduler ran at its time, and the misfire policy collapsed it into one run ' +
      '(RUN_ONCE) or dropped it (SKIP) (`missed`). paused: the job was paused then (or is, and will not resume ' +
      'before it). upcoming: still to come. unknown: a past slot of which nothing is known (`reason`).',
  })
  fate!: string;
  @ApiProperty({
    enum: SLOT_REASONS,
    nullable: true,
    example: null,
    description:
      'missed: no_scheduler. unknown: before_created (the job did not exist yet), not_reached (past, but no ' +
      'scheduler has handled it yet), no_record (nothing is kept about it: aged out by retention, or from before ' +
      'the schedule changed). Otherwise null.',
  })
  reason!: string | null;
  @ApiProperty({ type: RunRefResponse, nullable: true, description: 'fired: the execution of this slot' })
  execution!: RunRefResponse | null;
  @ApiProperty({ type: RunRefResponse, nullable: true, description: 'skipped: the run that was active then' })
  activeExecution!: RunRefResponse | null;
  @ApiProperty({ type: MissedEpisodeResponse, nullable: true, description: 'missed: the episode of the slot' })
  missed!: MissedEpisodeResponse | null;
  @ApiProperty({
    type: LateNoticeResponse,
    nullable: true,
    description: 'Whatever the fate: the slot.late notice, when no run had started in time',
  })
  late!: LateNoticeResponse | null;

  static from(record: SlotRecord): TimelineSlotResponse {
    return {
      ...record,
      slot: isoTime(record.slot),
      late: record.late ? { at: isoTime(record.late.at), detail: record.late.detail } : null,
    };
  }
}

export class TimelineResponse {
  @ApiProperty({ format: 'uuid' })
  jobId!: string;
  @ApiProperty({ example: '2026-11-30T09:00:00.000Z' })
  from!: string;
  @ApiProperty({ example: '2026-11-30T11:00:00.000Z' })
  to!: string;
  @ApiProperty({ example: '2026-11-30T10:30:00.000Z', description: 'The instant the fates were told at' })
  now!: string;
  @ApiProperty({
    type: [TimelineSlotResponse],
    description: "The slots of the job's schedule (as it is now) in [from, to), oldest first",
  })
  slots!: TimelineSlotResponse[];

  static from(timeline: Timeline): TimelineResponse {
    return {
      jobId: timeline.jobId,
      from: isoTime(timeline.from),
      to: isoTime(timeline.to),
      now: isoTime(timeline.now),
      slots: timeline.slots.map(TimelineSlotResponse.from),
    };
  }
}
