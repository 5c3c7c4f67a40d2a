import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/** GET /overview: of every team the caller sees, or of one of them. */
export class OverviewQuery {
  @ApiPropertyOptional({
    example: 'payments',
    description: "Only the jobs and runs of this team (one of the caller's)",
  })
  @IsOptional()
  @IsString()
  team?: string;
}
