import { Global, Module } from '@nestjs/common';
import { AuditLog } from './application/audit-log.js';
import { AuditController } from './http/audit.controller.js';
import { AuditInterceptor } from './http/audit.interceptor.js';
import { TypeOrmAuditLog } from './infrastructure/typeorm-audit-log.js';

@Global()
@Module({
  controllers: [AuditController],
  providers: [{ provide: AuditLog, useClass: TypeOrmAuditLog }, AuditInterceptor],
  exports: [AuditLog, AuditInterceptor],
})
export class AuditModule {}
