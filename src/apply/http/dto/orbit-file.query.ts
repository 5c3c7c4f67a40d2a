import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/** GET /orbit-file: which team's channels and jobs. */
export class OrbitFileQuery {
  @ApiPropertyOptional({
    example: 'payments',
    description:
      "Only this team's channels and jobs (one the caller administers): the file to apply with the same `team`",
  })
  @IsOptional()
  @IsString()
  team?: string;
}
