import { Global, Module } from '@nestjs/common';
import { AuditRecorder } from '../shared/http/audited.interceptor.js';
import { AuditLog } from './application/audit-log.js';
import { AuditController } from './http/audit.controller.js';
import { RequestAuditRecorder } from './http/request-audit-recorder.js';
import { SqlAuditLog } from './infrastructure/sql-audit-log.js';

/** The audit trail: records what @Audited routes did (as the AuditRecorder), and lists it. */
@Global()
@Module({
  controllers: [AuditController],
  providers: [
    { provide: AuditLog, useClass: SqlAuditLog },
    { provide: AuditRecorder, useClass: RequestAuditRecorder },
  ],
  exports: [AuditLog, AuditRecorder],
})
export class AuditModule {}
