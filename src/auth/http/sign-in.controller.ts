import { Controller, ForbiddenException, Get, HttpCode, Logger, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OrbitConfig } from '../../config/orbit-config.js';
import { Public } from '../../shared/http/access.decorators.js';
import { SignInRefused } from '../application/oidc-issuer.js';
import { PeopleService, SIGN_IN_ATTEMPT_MS } from '../application/people.service.js';
import { cookieOf, SESSION_COOKIE, setCookie, SIGN_IN_COOKIE } from './session-cookie.js';
import { refusedPage } from './sign-in-page.js';

class OidcProviderResponse {
  @ApiProperty({ example: 'Acme SSO', description: 'What the sign-in page calls the issuer' })
  name!: string;
  @ApiProperty({ example: '/auth/login', description: 'Where the browser goes to sign in' })
  loginUrl!: string;
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

const CALLBACK_PATH = '/auth/callback';

/** Sign-in through the OIDC issuer (authorization code flow with PKCE), and sign-out. */
@ApiTags('sign-in')
@Controller('auth')
export class SignInController {
  private readonly logger = new Logger('SignIn');
  private readonly origin: string;

  constructor(
    private readonly people: PeopleService,
    private readonly config: OrbitConfig,
  ) {
    this.origin = new URL(config.publicUrl).origin;
  }

  @Public()
  @Get('providers')
  @ApiOperation({ summary: 'How one may sign in here (no token needed): the issuer, if one is set up' })
  @ApiOkResponse({ type: ProvidersResponse })
  providers(): ProvidersResponse {
    const oidc = this.config.oidc;
    return { oidc: oidc ? { name: oidc.displayName, loginUrl: '/auth/login' } : null, token: true };
  }

  @Public()
  @Get('login')
  @ApiOperation({ summary: "Start a sign-in: 302 to the issuer's sign-in page (404 when no issuer is set up)" })
  async login(@Res() reply: FastifyReply): Promise<void> {
    try {
      const { url, state } = await this.people.begin();
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
