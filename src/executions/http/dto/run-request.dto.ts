import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsObject, IsOptional } from 'class-validator';

/** The body of POST /jobs/:id/executions: both fields may be left out (a run now, with the defaults). */
export class RunRequestDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { TARGET: 'production' },
    description:
      "Values of the job's declared parameters; the others take their defaults. An unknown name, a missing required one or a value that does not match its pattern is a 400 naming it",
  })
  @IsOptional()
  @IsObject()
  parameters?: Record<string, unknown>;

  @ApiPropertyOptional({
    example: '2026-12-24T18:00:00Z',
    description:
      'Queue the run due at this instant (not in the past, at most a year ahead); cancellable until it starts',
  })
  @IsOptional()
  @IsISO8601({ strict: true })
  runAt?: string;
}
