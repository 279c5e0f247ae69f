import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsObject, ValidateNested } from 'class-validator';

/**
 * A field holding one object of a DTO class, validated field by field. `@ValidateNested` alone lets an array
 * through (it validates each element, and an empty array has none), so an array is refused here, naming the
 * field.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const NestedObject = (type: () => Function) =>
  applyDecorators(
    ValidateNested(),
    Type(type),
    IsObject({ message: '$property must be an object, not an array or a scalar' }),
  );
