import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString } from 'class-validator';
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

  @ApiProperty({
    required: false,
    example: 'payments',
    description:
      "The team the token is for. A person's token: one of their teams (their only one by default), " +
      'with at most their role there. An admin may make a team token (unset: organisation-wide).',
  })
  @IsOptional()
  @IsString()
  team?: string;

  @ApiProperty({
    required: false,
    example: '2027-03-01T00:00:00Z',
    description: "When it stops working: required for a person's token (at most 366 days ahead)",
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'expiresAt must be an ISO 8601 instant' })
  expiresAt?: string;
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
  @ApiProperty({ type: String, nullable: true, example: 'payments', description: 'null: organisation-wide' })
  team!: string | null;
  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: "A personal token's person" })
  userId!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '2027-03-01T00:00:00.000Z' })
  expiresAt!: string | null;

  static from(token: ApiToken): TokenResponse {
    return {
      id: token.id,
      name: token.name,
      role: token.role,
      createdAt: token.createdAt.toISOString(),
      team: token.team,
      userId: token.userId,
      expiresAt: token.expiresAt?.toISOString() ?? null,
    };
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
