import { ApiProperty } from '@nestjs/swagger';

export class ErrorResponseDto {
  @ApiProperty({ example: 409 })
  statusCode!: number;

  @ApiProperty({ example: 'Only queued executions can be started' })
  message!: string;

  @ApiProperty({ example: 'Conflict' })
  error!: string;
}
