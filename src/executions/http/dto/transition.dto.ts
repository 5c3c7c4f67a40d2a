import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsInt, Max, Min } from 'class-validator';
import { INT32 } from '../../../shared/domain/int32.js';

export class SucceedDto {
  @ApiProperty({ example: 0, description: 'Any 32-bit integer' })
  @IsInt()
  @Min(INT32.min)
  @Max(INT32.max)
  exitCode!: number;
}

export class FailDto extends SucceedDto {
  @ApiPropertyOptional({
    example: 'Backup command failed',
    description:
      'Required by the domain, which checks the state first: failing a non-running execution is 409 even without it',
  })
  @Allow()
  errorMessage?: string;
}
