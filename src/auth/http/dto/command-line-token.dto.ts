import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';

/** What the command line asks of the personal token it is given, whichever way the person signed in. */
export class CommandLineTokenDto {
  @ApiProperty({ example: 'orbit CLI on laptop', description: "The token's name" })
  @IsString()
  name!: string;
  @ApiProperty({ required: false, example: 'payments', description: 'The team, when the person is in several' })
  @IsOptional()
  @IsString()
  team?: string;
}
