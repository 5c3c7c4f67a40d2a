import type { JobAlert } from '../domain/job-alerts.js';
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'jobs' })
export class JobOrmEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('text')
  name!: string;

  @Column('text')
  command!: string;

  @Column('text', { name: 'cron_expression' })
  cronExpression!: string;

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
}
