import { ApiProperty } from '@nestjs/swagger';
import { IsInstant } from './iso-instant.js';

/** A window of time in a query: [from, to), both instants with their offset. */
export class TimeWindowQuery {
  @ApiProperty({
    example: '2026-11-30T09:00:00Z',
    format: 'date-time',
    description: 'The window starts here (included)',
  })
  @IsInstant('from')
  from!: string;

  @ApiProperty({ example: '2026-11-30T11:00:00Z', format: 'date-time', description: 'The window ends here (excluded)' })
  @IsInstant('to')
  to!: string;
}
