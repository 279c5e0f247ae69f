import type { DomainEvent } from './decider';
import { domainEventReader } from './upcasting';

type CardIssuedV2 = DomainEvent<
  'CardIssued.v2',
  { cardId: string; brand: string; network: 'visa' | 'mastercard' }
>;
type CardFrozen = DomainEvent<'CardFrozen', { cardId: string; reason: string }>;
type CardEvent = CardIssuedV2 | CardFrozen;

const reader = domainEventReader<CardEvent>({
  // v1 had no network: every card of that time was a Visa.
  CardIssued: (event) => ({ type: 'CardIssued.v2', data: { ...event.data, network: 'visa' } }),
  // `reason` was added later; older freezes were the cardholder's own.
  CardFrozen: (event) => ({ type: 'CardFrozen', data: { reason: 'cardholder', ...event.data } }),
});

const recorded = (type: string, data: Record<string, unknown>) => ({
  type,
  data,
  streamId: 'crd-1',
  revision: 0,
  position: 7,
  metadata: { eventId: 'e-1', occurredAt: '2026-01-01T00:00:00.000Z', schemaVersion: 1 },
});

describe('reading stored events through the upcasters of their type', () => {
  it('lifts an old type to the new one, keeping the envelope', () => {
    const event = reader.read(recorded('CardIssued', { cardId: 'crd-1', brand: 'classic' }));
    expect(event).toMatchObject({
      type: 'CardIssued.v2',
      data: { cardId: 'crd-1', brand: 'classic', network: 'visa' },
      streamId: 'crd-1',
      position: 7,
      metadata: { eventId: 'e-1' },
    });
  });

  it('fills a field added later with its default, and leaves a new event as written', () => {
    expect(reader.read(recorded('CardFrozen', { cardId: 'crd-1' })).data).toEqual({
      cardId: 'crd-1',
      reason: 'cardholder',
    });
    expect(reader.read(recorded('CardFrozen', { cardId: 'crd-1', reason: 'lost' })).data).toEqual({
      cardId: 'crd-1',
      reason: 'lost',
    });
    const current = recorded('CardIssued.v2', { cardId: 'crd-2', brand: 'gold', network: 'mastercard' });
    expect(reader.read(current)).toBe(current);
  });

  it('never rewrites the stored event', () => {
    const stored = recorded('CardIssued', { cardId: 'crd-1', brand: 'classic' });
    reader.read(stored);
    expect(stored).toEqual(recorded('CardIssued', { cardId: 'crd-1', brand: 'classic' }));
  });

  it('refuses an upcaster table that never ends', () => {
    const looping = domainEventReader<CardEvent>({
      A: (event) => ({ ...event, type: 'B' }),
      B: (event) => ({ ...event, type: 'A' }),
    });
    expect(() => looping.read(recorded('A', {}))).toThrow('Upcasters of A do not end');
  });
});
