import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { IsSafeText } from './safe-text.decorator';

/** A person's first or last name, as users and identity imports take it (1 to 100 characters of safe text). */
export const PersonName = (example: string) =>
  applyDecorators(ApiProperty({ example }), IsSafeText(), MaxLength(100), IsNotEmpty(), IsString());
