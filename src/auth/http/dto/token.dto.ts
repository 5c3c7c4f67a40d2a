import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString } from 'class-validator';
import { ApiToken } from '../../domain/api-token.js';
import { ROLES } from '../../../shared/domain/role.js';
import type { Role } from '../../../shared/domain/role.js';

export class CreateTokenDto {
  @ApiProperty({ example: 'ci', minLength: 1, maxLength: 100 })
  @IsString()
  name!: string;

  @ApiProperty({ enum: ROLES, example: 'operator', description: 'viewer ⊂ operator ⊂ admin' })
  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role!: Role;
}

export class TokenResponse {
  @ApiProperty({ format: 'uuid', example: '3f0c2a52-8c4e-4d0a-9f57-1d2c3b4a5e6f' })
  id!: string;
  @ApiProperty({ example: 'ci' })
  name!: string;
  @ApiProperty({ enum: ROLES, example: 'operator' })
  role!: string;
  @ApiProperty({ example: '2026-11-30T10:00:00.000Z' })
  createdAt!: string;

  static from(token: ApiToken): TokenResponse {
    return { id: token.id, name: token.name, role: token.role, createdAt: token.createdAt.toISOString() };
  }
}

export class CreatedTokenResponse extends TokenResponse {
  @ApiProperty({ example: 'orbit_q3Vd0yX2…', description: 'The secret: shown in this answer only' })
  token!: string;
}

export class TokenPageResponse {
  @ApiProperty({ type: [TokenResponse] })
  items!: TokenResponse[];
  @ApiProperty({ type: String, nullable: true, example: null })
  nextCursor!: string | null;
}
