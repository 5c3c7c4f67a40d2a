import { ApiExtraModels, ApiPropertyOptional, getSchemaPath, OmitType } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { IsObject, IsOptional, validateSync } from 'class-validator';
import { CreateChannelDto } from '../../../alerts/http/dto/channel.dto.js';
import { CreateJobDto } from '../../../jobs/http/dto/create-job.dto.js';
import { fieldMistakes, FieldsRefusedException, type FieldMistake } from '../../../shared/http/validation.js';
import type { OrbitFile } from '../../application/apply.service.js';

/**
 * A job of the file: the body of POST /jobs without the name, which is its key, and without the
 * team: a file applies to one team, named beside it (POST /apply's `team`).
 */
export class JobEntryDto extends OmitType(CreateJobDto, ['name', 'team'] as const) {}

/** A channel of the file: the body of POST /channels without the name, which is its key. */
export class ChannelEntryDto extends OmitType(CreateChannelDto, ['name', 'team'] as const) {}

/** Each section of the file and the DTO of its entries, filled by @Entries. */
const SECTIONS = new Map<string, new () => object>();

/** A section of the file: a map from names to entries of `entry`, each validated as that DTO. */
function Entries(entry: new () => object, description: string): PropertyDecorator {
  return (target, key) => {
    SECTIONS.set(String(key), entry);
    ApiPropertyOptional({ type: 'object', additionalProperties: { $ref: getSchemaPath(entry) }, description })(
      target,
      key,
    );
    IsOptional()(target, key);
    IsObject()(target, key);
  };
}

/**
 * An orbit file (orbit.yaml): the channels and jobs Orbit should have, each by name. A section
 * is one @Entries property (with the ApplySection of the same key).
 */
@ApiExtraModels(JobEntryDto, ChannelEntryDto)
export class OrbitFileDto {
  @Entries(ChannelEntryDto, 'The alert channels the jobs name, by name; applied first, never pruned')
  channels?: Record<string, ChannelEntryDto>;

  @Entries(JobEntryDto, 'The jobs, by name')
  jobs?: Record<string, JobEntryDto>;
}

/**
 * Validates every entry as its section's DTO, with the rules of the endpoint that creates one;
 * a refusal names each mistake of every entry by its path: `jobs.nightly.timeoutSeconds must be
 * an integer; jobs.report.comand is not an accepted field (did you mean command?)`.
 */
export function entriesOf(file: OrbitFileDto): OrbitFile {
  const sections: Record<string, Record<string, object>> = {};
  const mistakes: FieldMistake[] = [];
  for (const [section, dto] of SECTIONS) {
    const entries = (file as Record<string, Record<string, unknown> | undefined>)[section] ?? {};
    sections[section] = {};
    for (const [name, entry] of Object.entries(entries)) {
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
        mistakes.push({ field: `${section}.${name}`, message: `${section}.${name} must be an object of its fields` });
        continue;
      }
      const instance = plainToInstance(dto, entry);
      mistakes.push(
        ...fieldMistakes(validateSync(instance, { whitelist: true, forbidNonWhitelisted: true }), `${section}.${name}`),
      );
      sections[section][name] = instance;
    }
  }
  if (mistakes.length > 0) throw new FieldsRefusedException(mistakes);
  return sections;
}
