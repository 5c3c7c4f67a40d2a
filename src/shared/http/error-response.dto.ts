import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class FieldErrorDto {
  @ApiProperty({ description: 'The path of the field, as the message names it', example: 'maxRetries' })
  field!: string;

  @ApiProperty({ example: 'maxRetries must not be less than 0' })
  message!: string;
}

export class ErrorResponseDto {
  @ApiProperty({ example: 409 })
  statusCode!: number;

  @ApiProperty({ example: 'Only queued executions can be started' })
  message!: string;

  @ApiProperty({ example: 'Conflict' })
  error!: string;

  @ApiPropertyOptional({
    description:
      'The request field the whole answer is about, when it is about one: its path, as the message names it (`name`, `triggers[0].after`, `alerts.0.channel`)',
    example: 'cronExpression',
  })
  field?: string;

  @ApiPropertyOptional({
    description:
      'When the message joins several mistakes of the request (with `; `): each one, in the same order, with the path of its field',
    type: [FieldErrorDto],
  })
  errors?: FieldErrorDto[];
}
