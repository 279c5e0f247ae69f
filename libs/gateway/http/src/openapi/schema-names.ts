/**
 * The name a DTO class's schema gets in the document: without the `Dto`/`Response` suffixes, which say how the
 * code uses the class, not what it is (`UserResponse` is the `User` of generated clients).
 */
export const publicSchemaName = (className: string): string =>
  className.replace(/Dto$/, '').replace(/Response$/, '') || className;
