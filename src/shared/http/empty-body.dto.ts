import { ApiSchema } from '@nestjs/swagger';

/** The body of an action that takes none: any field in it is refused as unknown (400). */
@ApiSchema({ description: 'No fields: send nothing or {}' })
export class EmptyBodyDto {}
