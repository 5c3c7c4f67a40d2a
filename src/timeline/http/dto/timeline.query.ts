import { ApiProperty } from '@nestjs/swagger';
import { IsInstant } from '../../../shared/http/iso-instant.js';

export class TimelineQuery {
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
