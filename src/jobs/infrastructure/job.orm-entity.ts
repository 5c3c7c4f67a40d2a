import type { JobAlert } from '../domain/job-alerts.js';
import type { JobParameter } from '../domain/job-parameters.js';
import type { JobTrigger } from '../domain/job-triggers.js';
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'jobs' })
export class JobOrmEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  name!: string;

  @Column('text')
  command!: string;

  @Column('text', { name: 'cron_expression', nullable: true })
  cronExpression!: string | null;

  @Column('text')
  timezone!: string;

  @Column('integer', { name: 'max_retries' })
  maxRetries!: number;

  @Column('integer', { name: 'timeout_seconds' })
  timeoutSeconds!: number;

  @Column('boolean')
  enabled!: boolean;

  @Column('text', { name: 'misfire_policy' })
  misfirePolicy!: string;

  @Column('text', { name: 'concurrency_policy' })
  concurrencyPolicy!: string;

  @Column('jsonb')
  alerts!: JobAlert[];

  @Column('jsonb', { name: 'worker_selector' })
  workerSelector!: Record<string, string>;

  @Column('text', { name: 'run_on' })
  runOn!: string;

  @Column('integer', { name: 'max_concurrent', nullable: true })
  maxConcurrent!: number | null;

  @Column('text', { name: 'concurrency_group', nullable: true })
  concurrencyGroup!: string | null;

  @Column('smallint')
  priority!: number;
  @Column('integer', { name: 'late_after_seconds', nullable: true })
  lateAfterSeconds!: number | null;

  @Column('integer', { name: 'max_duration_seconds', nullable: true })
  maxDurationSeconds!: number | null;

  @Column('timestamptz', { name: 'next_run_at', nullable: true })
  nextRunAt!: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;

  @Column('timestamptz', { name: 'deleted_at', nullable: true })
  deletedAt!: Date | null;

  @Column('integer')
  version!: number;

  @Column('text', { name: 'paused_note', nullable: true })
  pausedNote!: string | null;

  @Column('timestamptz', { name: 'resume_at', nullable: true })
  resumeAt!: Date | null;
  @Column('jsonb')
  triggers!: JobTrigger[];

  @Column('jsonb')
  parameters!: JobParameter[];

  @Column('timestamptz', { name: 'starts_at', nullable: true })
  startsAt!: Date | null;

  @Column('timestamptz', { name: 'ends_at', nullable: true })
  endsAt!: Date | null;

  @Column('integer', { name: 'jitter_seconds' })
  jitterSeconds!: number;
}
