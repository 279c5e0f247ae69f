import type { CreateCardInput } from '@cip/cards/contract';
import {
  REQUESTED_SHIPPING_METHOD,
  type CardRecord,
  type PhysicalCardDetails,
  type ShippingAddress,
} from '@cip/cards/domain';
import { Caller, DomainError } from '@cip/shared/contracts';
import type { UserView } from '@cip/users/contract';
import { isDeepStrictEqual } from 'node:util';

const PHYSICAL_ONLY = ['tier', 'deliveryType', 'address'] as const;

/** `tier`, `deliveryType` and `address` describe a physical card: on a virtual one they are a mistake. */
export function refusePhysicalFieldsOnVirtual(input: CreateCardInput): void {
  if (input.type === 'physical') return;
  const present = PHYSICAL_ONLY.filter((field) => input[field] !== undefined);
  if (present.length === 0) return;
  throw new DomainError(
    'validation_error',
    `${present.join(', ')} ${present.length > 1 ? 'are' : 'is'} for physical cards only`,
    present.map((field) => ({ field, message: `${field} is for physical cards only` })),
  );
}

/**
 * Where a new physical card ships (API-DECISIONS, "Cards": only to a verified address). The user's
 * `shippingAddress` is only ever set by a verified shipping KYC or by a B2B program, so a user's address
 * is a verified one. A B2B program may also name the address in the request (as it may set the user's, it
 * is trusted with addresses; the card ships there, the user's own address is left as it is). Any other
 * program may only repeat the user's verified address: taking another one from the request would bypass
 * the shipping KYC the spec asks for first, so it is `409 shipping_address_required` like a missing one.
 */
export function physicalCardDetails(
  caller: Caller,
  user: UserView,
  input: CreateCardInput,
): PhysicalCardDetails {
  const verified = user.shippingAddress;
  const requested = input.address;
  if (requested && !caller.program.b2b && !(verified && sameAddress(verified, requested))) {
    throw new DomainError(
      'shipping_address_required',
      `address differs from the verified shipping address of user ${user.id}: only B2B programs may ship ` +
        'elsewhere; change the address with a shipping KYC first, or omit address to use the verified one',
    );
  }
  const shippingAddress = caller.program.b2b && requested ? requested : verified;
  if (!shippingAddress) throw noVerifiedAddress(user.id);
  return {
    tier: input.tier ?? 'standard',
    deliveryType: input.deliveryType ?? 'ship_to_user',
    shippingAddress,
    requestedShippingMethod: REQUESTED_SHIPPING_METHOD,
  };
}

/**
 * A physical reissue ships to the user's current verified address; a B2B program's card without one
 * (its address came with the card request) goes back to where the old card went.
 */
export function reissuedPhysicalCardDetails(
  caller: Caller,
  user: UserView,
  old: CardRecord,
): PhysicalCardDetails {
  const shippingAddress = user.shippingAddress ?? (caller.program.b2b ? old.shippingAddress : null);
  if (!shippingAddress) throw noVerifiedAddress(user.id);
  return {
    tier: old.tier ?? 'standard',
    deliveryType: old.deliveryType ?? 'ship_to_user',
    shippingAddress,
    requestedShippingMethod: old.shipment?.requestedShippingMethod ?? REQUESTED_SHIPPING_METHOD,
  };
}

const noVerifiedAddress = (userId: string) =>
  new DomainError(
    'shipping_address_required',
    `User ${userId} has no verified shipping address: complete a shipping KYC and wait for ` +
      'user.shippingAddressUpdated before ordering a physical card',
  );

/** The same address, whatever the case of the country code and the spaces around the values. */
function sameAddress(a: ShippingAddress, b: ShippingAddress): boolean {
  return isDeepStrictEqual(normalized(a), normalized(b));
}

const normalized = (address: ShippingAddress) => ({
  addressLine1: address.addressLine1.trim(),
  addressLine2: address.addressLine2?.trim() || undefined,
  city: address.city.trim(),
  state: address.state?.trim() || undefined,
  postalCode: address.postalCode.trim(),
  country: address.country.trim().toUpperCase(),
});
