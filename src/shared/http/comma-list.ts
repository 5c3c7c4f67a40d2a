import { Transform } from 'class-transformer';

/** A list in the query, given by repeating the parameter or by commas (`?ids=a,b&ids=c`): its items, empty ones dropped. */
export function CommaList(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) =>
    (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(',')).filter((v) => v !== ''),
  );
}
