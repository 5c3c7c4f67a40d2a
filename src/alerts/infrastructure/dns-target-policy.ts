import { lookup } from 'node:dns/promises';
import { Injectable } from '@nestjs/common';
import { OrbitConfig } from '../../config/orbit-config.js';
import { InvalidArgumentError } from '../../shared/domain/domain-errors.js';
import { TargetPolicy } from '../application/alert-sender.js';
import type { ChannelType } from '../domain/channel.js';
import { literalAddress, refusalOf, slackRefusalOf } from '../domain/target-address.js';

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

/**
 * Where an alert URL's host points now, if every address it resolves to may be a target; else
 * throws, naming why. The sender connects to the address answered here, so a name cannot
 * resolve to an allowed address for the check and to a refused one for the connection.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<ResolvedTarget> {
  const literal = literalAddress(url.hostname);
  const addresses = literal
    ? [{ address: literal, family: literal.includes(':') ? 6 : 4 }]
    : await lookup(url.hostname, { all: true, verbatim: true }).catch((error: NodeJS.ErrnoException) => {
        throw new InvalidArgumentError(
          `url: ${url.hostname} does not resolve (${error.code ?? 'lookup failed'})`,
          'url',
        );
      });
  for (const { address } of addresses) {
    const refusal = refusalOf(address, allowPrivate);
    if (refusal !== null) {
      throw new InvalidArgumentError(
        literal ? `url: ${refusal}` : `url: ${url.hostname} resolves to ${refusal}`,
        'url',
      );
    }
  }
  const [first] = addresses;
  if (!first) throw new InvalidArgumentError(`url: ${url.hostname} resolves to no address`, 'url');
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

@Injectable()
export class DnsTargetPolicy extends TargetPolicy {
  constructor(private readonly config: OrbitConfig) {
    super();
  }

  /** A Slack channel posts to Slack only, unless private targets are allowed (a receiver inside the network, tests). */
  async check(url: string, type: ChannelType): Promise<void> {
    const target = new URL(url);
    const slackRefusal = type === 'slack' && !this.config.alertsAllowPrivate ? slackRefusalOf(target) : null;
    if (slackRefusal !== null) throw new InvalidArgumentError(slackRefusal, 'url');
    await resolveTarget(target, this.config.alertsAllowPrivate);
  }
}
