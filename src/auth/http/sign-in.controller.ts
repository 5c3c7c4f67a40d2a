import { Body, Controller, ForbiddenException, Get, HttpCode, Logger, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiExcludeEndpoint,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiTags,
} from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OrbitConfig } from '../../config/orbit-config.js';
import { Public, TeamsCheckedByRoute } from '../../shared/http/access.decorators.js';
import { DeviceSignInService } from '../application/device-sign-in.service.js';
import { SignInRefused } from '../application/oidc-issuer.js';
import { CLI_TOKEN_DAYS, PeopleService, SIGN_IN_ATTEMPT_MS } from '../application/people.service.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { CommandLineTokenDto } from './dto/command-line-token.dto.js';
import { CreatedTokenResponse, TokenResponse } from './dto/token.dto.js';
import { cookieOf, SESSION_COOKIE, setCookie, SIGN_IN_COOKIE } from './session-cookie.js';
import { refusedPage } from './sign-in-page.js';

class OidcProviderResponse {
  @ApiProperty({ example: 'Acme SSO', description: 'What the sign-in page calls the issuer' })
  name!: string;
  @ApiProperty({ example: '/auth/login', description: 'Where the browser goes to sign in' })
  loginUrl!: string;
  @ApiProperty({
    example: true,
    description:
      'The issuer offers Orbit its device authorization grant: `orbit login --sso` then signs in through POST /auth/device',
  })
  deviceGrant!: boolean;
}

class ProvidersResponse {
  @ApiProperty({ type: OidcProviderResponse, nullable: true, description: 'null: no issuer is set up' })
  oidc!: OidcProviderResponse | null;
  @ApiProperty({ example: true, description: 'A token can always be pasted in' })
  token!: boolean;
}

class SignedOutResponse {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Where to send the browser to end the session at the issuer too (null: it has no such page)',
  })
  redirectTo!: string | null;
}

class LoginQuery {
  @ApiProperty({ required: false, example: '53127', description: "The command line's loopback port" })
  @IsOptional()
  @IsString()
  cli_port?: string;
  @ApiProperty({ required: false, description: "The command line's PKCE challenge (S256)" })
  @IsOptional()
  @IsString()
  cli_challenge?: string;
}

class CliTokenDto extends CommandLineTokenDto {
  @ApiProperty({ description: 'The one-time code the browser brought to the command line' })
  @IsString()
  code!: string;
  @ApiProperty({ description: 'The PKCE verifier of the challenge the command line started with' })
  @IsString()
  verifier!: string;
}

const CALLBACK_PATH = '/auth/callback';

/** Sign-in through the OIDC issuer (authorization code flow with PKCE), and sign-out. */
@ApiTags('sign-in')
@TeamsCheckedByRoute()
@Controller('auth')
export class SignInController {
  private readonly logger = new Logger('SignIn');
  private readonly origin: string;

  constructor(
    private readonly people: PeopleService,
    private readonly devices: DeviceSignInService,
    private readonly config: OrbitConfig,
  ) {
    this.origin = new URL(config.publicUrl).origin;
  }

  @Public()
  @Get('providers')
  @ApiOperation({ summary: 'How one may sign in here (no token needed): the issuer, if one is set up' })
  @ApiOkResponse({ type: ProvidersResponse })
  async providers(): Promise<ProvidersResponse> {
    const oidc = this.config.oidc;
    if (!oidc) return { oidc: null, token: true };
    return {
      oidc: { name: oidc.displayName, loginUrl: '/auth/login', deviceGrant: await this.devices.offered() },
      token: true,
    };
  }

  @Public()
  @Get('login')
  @ApiOperation({
    summary: "Start a sign-in: 302 to the issuer's sign-in page (404 when no issuer is set up)",
    description:
      '`orbit login --sso` adds its loopback port and a PKCE challenge: the browser then comes back to it with a one-time code, not with a session.',
  })
  async login(@Query() query: LoginQuery, @Res() reply: FastifyReply): Promise<void> {
    try {
      const { url, state } = await this.people.begin({ port: query.cli_port, challenge: query.cli_challenge });
      const cookie = setCookie(SIGN_IN_COOKIE, state, this.config.publicUrl, SIGN_IN_ATTEMPT_MS / 1000, CALLBACK_PATH);
      await reply.header('set-cookie', cookie).header('cache-control', 'no-store').redirect(url, 302);
    } catch (error) {
      if (!(error instanceof SignInRefused)) throw error;
      await this.refused(reply, error);
    }
  }

  @Public()
  @Get('callback')
  @ApiExcludeEndpoint()
  async callback(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    void reply.header('set-cookie', setCookie(SIGN_IN_COOKIE, '', this.config.publicUrl, 0, CALLBACK_PATH));
    try {
      const session = await this.people.complete(
        new URL(`${this.config.publicUrl}${request.url}`),
        cookieOf(request, SIGN_IN_COOKIE),
      );
      if ('redirectTo' in session) {
        await reply.header('cache-control', 'no-store').redirect(session.redirectTo, 302);
        return;
      }
      const cookie = setCookie(SESSION_COOKIE, session.secret, this.config.publicUrl, session.maxAgeSeconds);
      await reply
        .header('set-cookie', cookie)
        .header('cache-control', 'no-store')
        .redirect(`${this.config.publicUrl}/ui/`, 302);
    } catch (error) {
      if (!(error instanceof SignInRefused)) throw error;
      await this.refused(reply, error);
    }
  }

  @Public()
  @Post('cli-token')
  @ApiOperation({
    summary: "Redeem the command line's one-time sign-in code for a personal token (orbit login --sso)",
    description: `The token is the person's, for their only team (or \`team\`), with their role there, for ${CLI_TOKEN_DAYS} days.`,
  })
  @ApiCreatedResponse({ type: CreatedTokenResponse })
  @ApiErrors(400, 404)
  async cliToken(@Body() body: CliTokenDto): Promise<CreatedTokenResponse> {
    const { token, secret } = await this.people.redeemCliCode(body.code, body.verifier, body.name, body.team);
    return { ...TokenResponse.from(token), token: secret };
  }

  @Public()
  @Post('logout')
  @HttpCode(200)
  @ApiOperation({
    summary: 'End the session of this browser (and say where to end it at the issuer too)',
    description: 'Without a session it answers the same; with one, the request must come from ORBIT_PUBLIC_URL.',
  })
  @ApiOkResponse({ type: SignedOutResponse })
  async logout(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const session = cookieOf(request, SESSION_COOKIE);
    let redirectTo: string | null = null;
    if (session) {
      if (request.headers.origin !== this.origin) {
        throw new ForbiddenException(`A sign-out through a browser session must come from ${this.origin}`);
      }
      redirectTo = await this.people.signOut(session);
    }
    await reply
      .header('set-cookie', setCookie(SESSION_COOKIE, '', this.config.publicUrl, 0))
      .header('cache-control', 'no-store')
      .send({ redirectTo });
  }

  private async refused(reply: FastifyReply, error: SignInRefused): Promise<void> {
    this.logger.warn(`Sign-in refused: ${error.detail ?? error.reason}`);
    await reply
      .code(error.unreachable ? 502 : 400)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(refusedPage(error.reason, this.config.publicUrl));
  }
}
