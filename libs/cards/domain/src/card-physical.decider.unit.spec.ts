import { deciderSpec } from '@cip/shared/testing';
import type { CardCommand, CreateCard } from './card.commands';
import { cardDecider, type CardRecord } from './card.decider';
import type { CardCreated, CardEvent } from './card.events';
import type { PhysicalCardDetails } from './card-shipping';
import { CARD_ID, created, CREATED_AT, ISSUED, LATER, OWNER } from './card.spec-fixtures';

// Physical cards, their shipment and reissues (issue 11): every transition and refusal of the card decider.

const spec = deciderSpec(cardDecider);

const NEW_CARD_ID = 'crd-a1b2c3d4';
const ADDRESS = {
  addressLine1: 'Unter den Linden 5',
  city: 'Berlin',
  state: 'BE',
  postalCode: '10117',
  country: 'DE',
};
const PHYSICAL: PhysicalCardDetails = {
  tier: 'standard',
  deliveryType: 'ship_to_user',
  shippingAddress: ADDRESS,
  requestedShippingMethod: 'standard',
};

const createCard = (data: Partial<CreateCard['data']> = {}): CreateCard => ({
  type: 'CreateCard',
  data: { ...OWNER, type: 'physical', issued: ISSUED, physical: PHYSICAL, now: CREATED_AT, ...data },
});

const physicalCreated: CardCreated = {
  type: 'CardCreated',
  data: { ...OWNER, type: 'physical', status: 'inactive', ...ISSUED, createdAt: CREATED_AT, ...PHYSICAL },
};
const virtualCreated = created('active');
const ordered: CardEvent = {
  type: 'CardFulfilmentOrdered',
  data: { cardId: CARD_ID, provider: 'sandbox', orderId: 'sbx-order-1', at: CREATED_AT },
};
const shipped: CardEvent[] = [
  { type: 'CardShipped', data: { cardId: CARD_ID, actualShippingMethod: 'standard', at: LATER } },
  {
    type: 'CardTrackingNumberUpdated',
    data: {
      cardId: CARD_ID,
      trackingNumber: '1Z999',
      requestedShippingMethod: 'standard',
      actualShippingMethod: 'standard',
      at: LATER,
    },
  },
];
const revoked = (previousStatus: 'active' | 'inactive' | 'frozen' = 'active', extra = {}): CardEvent => ({
  type: 'CardRevoked',
  data: { cardId: CARD_ID, previousStatus, at: LATER, ...extra },
});

const order: CardCommand = {
  type: 'RecordFulfilmentOrder',
  data: { provider: 'sandbox', orderId: 'sbx-order-1', now: CREATED_AT },
};
const ship = (trackingNumber = '1Z999', shippingMethod?: 'standard' | 'express'): CardCommand => ({
  type: 'RecordShipment',
  data: { trackingNumber, ...(shippingMethod ? { shippingMethod } : {}), now: LATER },
});
const reissue = (
  reason: 'lost' | 'stolen' | 'damaged' | 'expired',
  newCardId = NEW_CARD_ID,
): CardCommand => ({
  type: 'ReissueCard',
  data: { reason, newCardId, now: LATER },
});
const replaced = (reason: 'lost' | 'stolen' | 'damaged' | 'expired'): CardEvent => ({
  type: 'CardReplaced',
  data: { cardId: CARD_ID, replacedBy: NEW_CARD_ID, reason, at: LATER },
});
const retire = (replacedBy = NEW_CARD_ID): CardCommand => ({
  type: 'RetireReplacedCard',
  data: { replacedBy, cause: `replaced:${replacedBy}`, now: LATER },
});

const fold = (events: CardEvent[]) =>
  events.reduce(cardDecider.evolve, cardDecider.initialState()) as CardRecord;

describe('creating a physical card', () => {
  it('records it inactive, with what is printed and the address it ships to, its shipment pending', () => {
    spec.given([]).when(createCard()).then([physicalCreated]);
    expect(fold([physicalCreated])).toMatchObject({
      status: 'inactive',
      tier: 'standard',
      deliveryType: 'ship_to_user',
      shippingAddress: ADDRESS,
      replacesCardId: null,
      shipment: {
        status: 'pending',
        trackingNumber: null,
        requestedShippingMethod: 'standard',
        actualShippingMethod: null,
        shippedAt: null,
      },
    });
  });

  it('refuses a physical card without its shipping details, and a virtual card with them', () => {
    spec
      .given([])
      .when(createCard({ physical: undefined }))
      .thenThrows('validation_error', /physical card needs/);
    spec
      .given([])
      .when(createCard({ type: 'virtual' }))
      .thenThrows('validation_error', /physical cards only/);
  });

  it('leaves a virtual card without shipping fields', () => {
    expect(fold([virtualCreated])).toMatchObject({
      tier: null,
      deliveryType: null,
      shippingAddress: null,
      shipment: null,
      replacesCardId: null,
      replacedBy: null,
    });
  });

  it('records the spending controls it is created with, validated like an update', () => {
    const controls = { limits: [{ amount: 5_000_000, interval: 'daily' }], blockedMccGroups: ['gambling'] };
    const [event] = cardDecider.decide(
      createCard({ type: 'virtual', physical: undefined, spendingControls: controls }),
      cardDecider.initialState(),
    );
    expect(event.data).toMatchObject({
      status: 'active',
      spendingControls: { ...controls, blockedMccs: [], allowedMccs: [] },
    });
    expect(fold([event]).spendingControls).toEqual({ ...controls, blockedMccs: [], allowedMccs: [] });
  });

  it('refuses bad spending controls, naming the field under spendingControls', () => {
    let caught: unknown;
    try {
      cardDecider.decide(
        createCard({ spendingControls: { limits: [{ amount: 10, interval: 'hourly' }] } }),
        cardDecider.initialState(),
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: 'validation_error',
      details: [expect.objectContaining({ field: 'spendingControls.limits.0.interval' })],
    });
  });

  it('names the card a replacement replaces', () => {
    const [event] = cardDecider.decide(createCard({ replacesCardId: 'crd-old' }), cardDecider.initialState());
    expect(event.data).toMatchObject({ replacesCardId: 'crd-old' });
    expect(fold([event]).replacesCardId).toBe('crd-old');
  });
});

describe('ordering a physical card from the card bureau', () => {
  it('records the order once; the shipment is then submitted', () => {
    spec.given([physicalCreated]).when(order).then([ordered]);
    spec.given([physicalCreated, ordered]).when(order).thenNothing();
    expect(fold([physicalCreated, ordered]).shipment?.status).toBe('submitted');
  });

  it('orders nothing for a card revoked before its order went out', () => {
    spec
      .given([physicalCreated, revoked('inactive')])
      .when(order)
      .thenNothing();
  });

  it('refuses a virtual card, and a card that does not exist', () => {
    spec
      .given([virtualCreated])
      .when(order)
      .thenThrows('invalid_state_transition', /virtual/);
    spec.given([]).when(order).thenThrows('not_found');
  });
});

describe('shipping a physical card', () => {
  it('ships a submitted card with its tracking number, and then it can be activated', () => {
    spec.given([physicalCreated, ordered]).when(ship()).then(shipped);
    expect(fold([physicalCreated, ordered, ...shipped]).shipment).toEqual({
      status: 'shipped',
      trackingNumber: '1Z999',
      requestedShippingMethod: 'standard',
      actualShippingMethod: 'standard',
      shippedAt: LATER,
    });
    spec
      .given([physicalCreated, ordered, ...shipped])
      .when({ type: 'ActivateCard', data: { now: LATER } })
      .then([{ type: 'CardActivated', data: { cardId: CARD_ID, previousStatus: 'inactive', at: LATER } }]);
  });

  it('records the method the carrier used when it differs from the one requested', () => {
    const [first, tracking] = cardDecider.decide(ship('1Z999', 'express'), fold([physicalCreated, ordered]));
    expect(first.data).toMatchObject({ actualShippingMethod: 'express' });
    expect(tracking.data).toMatchObject({
      requestedShippingMethod: 'standard',
      actualShippingMethod: 'express',
    });
  });

  it('updates the tracking number of a shipped card, and changes nothing for the same notice again', () => {
    spec
      .given([physicalCreated, ordered, ...shipped])
      .when(ship())
      .thenNothing();
    spec
      .given([physicalCreated, ordered, ...shipped])
      .when(ship('1Z777'))
      .then([
        {
          type: 'CardTrackingNumberUpdated',
          data: {
            cardId: CARD_ID,
            trackingNumber: '1Z777',
            requestedShippingMethod: 'standard',
            actualShippingMethod: 'standard',
            at: LATER,
          },
        },
      ]);
    const [update] = cardDecider.decide(
      ship('1Z999', 'express'),
      fold([physicalCreated, ordered, ...shipped]),
    );
    expect(update).toMatchObject({
      type: 'CardTrackingNumberUpdated',
      data: { actualShippingMethod: 'express' },
    });
  });

  it('refuses to ship a card the bureau has not accepted, a revoked card, a virtual card, a missing card', () => {
    spec
      .given([physicalCreated])
      .when(ship())
      .thenThrows('invalid_state_transition', /not been ordered/);
    spec
      .given([physicalCreated, ordered, revoked('inactive')])
      .when(ship())
      .thenThrows('invalid_state_transition', /revoked/);
    spec
      .given([virtualCreated])
      .when(ship())
      .thenThrows('invalid_state_transition', /virtual/);
    spec.given([]).when(ship()).thenThrows('not_found');
  });

  it('refuses to activate a physical card before it shipped, with a message that says so', () => {
    for (const given of [[physicalCreated], [physicalCreated, ordered]]) {
      spec
        .given(given)
        .when({ type: 'ActivateCard', data: { now: LATER } })
        .thenThrows('invalid_state_transition', /has not been shipped yet/);
    }
  });
});

describe('reissuing a card', () => {
  it('revokes a lost or stolen card at once, naming its replacement', () => {
    for (const reason of ['lost', 'stolen'] as const) {
      spec
        .given([virtualCreated])
        .when(reissue(reason))
        .then([
          replaced(reason),
          revoked('active', { reason: `Card ${reason}: reissued as ${NEW_CARD_ID}` }),
        ]);
    }
  });

  it('keeps a damaged or expired card working, naming its replacement', () => {
    for (const reason of ['damaged', 'expired'] as const) {
      spec
        .given([virtualCreated])
        .when(reissue(reason))
        .then([replaced(reason)]);
    }
    expect(fold([virtualCreated, replaced('damaged')])).toMatchObject({
      status: 'active',
      replacedBy: NEW_CARD_ID,
    });
  });

  it('keeps the first replacement when asked again, and revokes at once a card lost after being damaged', () => {
    spec
      .given([virtualCreated, replaced('damaged')])
      .when(reissue('damaged', 'crd-other'))
      .thenNothing();
    spec
      .given([virtualCreated, replaced('damaged')])
      .when(reissue('lost', 'crd-other'))
      .then([revoked('active', { reason: `Card lost: reissued as ${NEW_CARD_ID}` })]);
    spec
      .given([virtualCreated, replaced('stolen'), revoked('active')])
      .when(reissue('stolen', 'crd-other'))
      .thenNothing();
  });

  it('reissues a frozen or inactive card', () => {
    spec
      .given([physicalCreated])
      .when(reissue('lost'))
      .then([replaced('lost'), revoked('inactive', { reason: `Card lost: reissued as ${NEW_CARD_ID}` })]);
  });

  it('refuses a revoked card that was never replaced, and a card that does not exist', () => {
    spec
      .given([virtualCreated, revoked()])
      .when(reissue('lost'))
      .thenThrows('invalid_state_transition', /revoked/);
    spec.given([]).when(reissue('lost')).thenThrows('not_found');
  });
});

describe('retiring a replaced card once its replacement is active', () => {
  const retired = revoked('active', {
    reason: `Replaced by ${NEW_CARD_ID}, now active`,
    cause: `replaced:${NEW_CARD_ID}`,
  });

  it('revokes the damaged or expired card, once', () => {
    spec
      .given([virtualCreated, replaced('damaged')])
      .when(retire())
      .then([retired]);
    spec
      .given([virtualCreated, replaced('damaged'), retired])
      .when(retire())
      .thenNothing();
  });

  it('leaves alone a card revoked already, or not replaced by that card', () => {
    spec
      .given([virtualCreated, replaced('lost'), revoked()])
      .when(retire())
      .thenNothing();
    spec
      .given([virtualCreated, replaced('expired')])
      .when(retire('crd-other'))
      .thenNothing();
    spec.given([virtualCreated]).when(retire()).thenNothing();
  });

  it('refuses a card that does not exist', () => {
    spec.given([]).when(retire()).thenThrows('not_found');
  });
});

describe("erasing a physical card's shipping address with its user", () => {
  const erase: CardCommand = { type: 'EraseShippingAddress', data: { cause: 'user:evt-1', now: LATER } };
  const erased: CardEvent = {
    type: 'CardShippingAddressErased',
    data: { cardId: CARD_ID, cause: 'user:evt-1', at: LATER },
  };

  it('records the erasure once; the address then reads as null', () => {
    spec.given([physicalCreated, ordered]).when(erase).then([erased]);
    spec.given([physicalCreated, erased]).when(erase).thenNothing();
    expect(fold([physicalCreated, erased]).shippingAddress).toBeNull();
  });

  it('records it on a revoked card too, and nothing on a virtual card', () => {
    spec
      .given([physicalCreated, revoked('inactive')])
      .when(erase)
      .then([erased]);
    spec.given([virtualCreated]).when(erase).thenNothing();
    spec.given([]).when(erase).thenThrows('not_found');
  });
});
