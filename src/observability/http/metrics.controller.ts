import { Controller, Get, Header } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { OrganisationTokenOnly, OrganisationWide } from '../../shared/http/access.decorators.js';
import { ApiErrors } from '../../shared/http/api-errors.decorator.js';
import { PromMetrics } from '../infrastructure/prom-metrics.js';

@ApiTags('metrics')
@ApiBearerAuth()
@OrganisationWide()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: PromMetrics) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  @OrganisationTokenOnly()
  @ApiOperation({ summary: 'Prometheus metrics of this node (viewer, with an organisation-wide token)' })
  @ApiOkResponse({ description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } })
  @ApiErrors()
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
