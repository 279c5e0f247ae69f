import { casesFor } from './fuzz-cases';
import { operationsOf } from './openapi-operations';

/** The fuzzer reads 3.0 and 3.1 documents alike, so it keeps working while the served document evolves. */
describe('operations of an OpenAPI document', () => {
  const document = {
    openapi: '3.1.0',
    paths: {
      '/v1/things/{thingId}': {
        parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }],
        put: {
          operationId: 'updateThing',
          requestBody: {
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
        },
        delete: {},
      },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', example: 'Ada' },
            nickname: { type: ['string', 'null'] },
            legacy: { type: 'string', nullable: true },
            address: { allOf: [{ $ref: '#/components/schemas/Address' }] },
          },
        },
        Address: { type: 'object', properties: { city: { type: 'string', example: 'Paris' } } },
      },
    },
  };

  it('resolves $refs and folds 3.0 nullable and 3.1 type arrays into one shape', () => {
    const [update, remove] = operationsOf(document);
    expect(update).toMatchObject({ method: 'PUT', label: 'updateThing', path: '/v1/things/{thingId}' });
    expect(update.parameters).toEqual([
      expect.objectContaining({ name: 'thingId', in: 'path', required: true }),
    ]);
    expect(update.body?.required).toEqual(['name']);
    expect(update.body?.properties.nickname).toMatchObject({ types: ['string'], nullable: true });
    expect(update.body?.properties.legacy).toMatchObject({ types: ['string'], nullable: true });
    expect(update.body?.properties.address.properties.city.example).toBe('Paris');
    expect(remove).toMatchObject({ method: 'DELETE', label: 'delete /v1/things/{thingId}', body: undefined });
  });

  it('generates the same requests for the same seed, real ids in the path', () => {
    const [update] = operationsOf(document);
    const known = { thingId: 'thg-1' };
    const first = casesFor(update, known, 7);
    expect(casesFor(update, known, 7)).toEqual(first);
    expect(first.some((c) => c.name.startsWith('body.address.city: bidi isolate'))).toBe(true);
    expect(first.find((c) => c.name.startsWith('body.name: missing'))).toMatchObject({
      target: '/v1/things/thg-1',
      mustReject: true,
    });
  });
});
