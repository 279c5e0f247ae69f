// ---------------------------------------------------------------------------------------------------
// Restricted merchant category groups (spec part 1, fact 6): the one table of which MCCs each group holds.
//
// Sources, cited per entry by their short names:
// - ISO: ISO 18245 "Retail financial services - Merchant category codes", the assigned codes and their
//   ranges as transcribed in github.com/jleclanche/python-iso18245 (data/iso18245_official_list.csv,
//   data/iso18245_ranges.csv).
// - Visa: Visa Merchant Data Standards Manual, MCC list (same repository, data/visa_list.csv).
// - Mastercard: Mastercard Quick Reference Booklet, MCC list (same repository, data/mastercard_list.csv);
//   the codes 65xx and 9754 are Mastercard's own and appear in no other list.
// - Stripe: the Issuing merchant categories, https://docs.stripe.com/issuing/categories, which groups
//   these codes the same way for its spending controls.
// Descriptions are the scheme's wording (Visa first, Mastercard where only it assigns the code).
//
// Overlaps, decided here: a code may sit in more than one group, and an authorization is declined when any
// blocked group holds its MCC. 6051 is the only overlap: Visa files cryptocurrency purchases under the
// same code as foreign currency and money orders, and no scheme has a code for crypto alone, so it is in
// both `quasi_cash` and `crypto`; unblocking `crypto` alone does not let it through.
//
// What the table cannot catch: a merchant is coded by its acquirer after its main line of business, so a
// sporting goods store selling firearms carries 5941 (sporting goods), not 5723. 5941 stays unblocked
// because the spec keeps standard retail unaffected; distributors who want it blocked list it themselves.
// ---------------------------------------------------------------------------------------------------

export interface MccEntry {
  readonly mcc: string;
  readonly description: string;
  readonly source: string;
}

const entry = (mcc: string, description: string, source: string): MccEntry => ({ mcc, description, source });

/** The MCCs of each restricted group, keyed by the group name the API uses in `blockedMccGroups`. */
export const MCC_GROUPS = {
  /** Purchases of cash equivalents: what a card must not turn into cash outside the ATM rules. */
  quasi_cash: [
    entry(
      '6012',
      'Financial Institutions – Merchandise, Services, and Debt Repayment',
      'ISO, Visa; Mastercard: "Quasi Cash – Financial Institution – Merchandise and Services"',
    ),
    entry('6050', 'Quasi Cash – Member Financial Institution', 'Mastercard'),
    entry(
      '6051',
      'Non-Financial Institutions – Foreign Currency, Non-Fiat Currency (for example: Cryptocurrency), Money Orders (Not Money Transfer), Travelers Cheques',
      'ISO, Visa; Mastercard: "Quasi Cash – Merchant"',
    ),
    entry('6529', 'Remote Stored Value Load – Member Financial Institution', 'Mastercard'),
    entry('6530', 'Remote Stored Value Load – Merchant', 'Mastercard'),
    entry('6535', 'Value Purchase – Member Financial Institution', 'Mastercard'),
    entry(
      '6540',
      'Non-Financial Institutions – Stored Value Card Purchase/Load',
      'Visa; Mastercard: "POI Funding Transactions (Excluding MoneySend)"',
    ),
  ],
  /** Sending the card's funds to someone else. */
  money_transfer: [
    entry(
      '4829',
      'Money Transfer',
      'ISO: "Wire transfers and money orders"; Visa; Mastercard: "Quasi Cash – Money Transfer"',
    ),
    entry('6534', 'Money Transfer – Member Financial Institution', 'Mastercard'),
    // MoneySend intra- and intercountry are credits to a card; listed so that a debit coded with them is caught too.
    entry('6536', 'MoneySend Intracountry', 'Mastercard'),
    entry('6537', 'MoneySend Intercountry', 'Mastercard'),
    entry('6538', 'MoneySend Funding', 'Mastercard'),
  ],
  gambling: [
    entry('7800', 'Government-Owned Lotteries (US Region only)', 'Visa, Mastercard'),
    entry(
      '7801',
      'Government Licensed On-Line Casinos (On-Line Gambling) (US Region only)',
      'Visa, Mastercard',
    ),
    entry('7802', 'Government-Licensed Horse/Dog Racing (US Region only)', 'Visa, Mastercard'),
    entry(
      '7995',
      'Betting, including Lottery Tickets, Casino Gaming Chips, Off-Track Betting, and Wagers at Race Tracks',
      'ISO, Visa, Mastercard',
    ),
    entry('9406', 'Government-Owned Lotteries (Non-U.S. region)', 'Visa'),
    entry('9754', 'Quasi Cash – Gambling – Horse Racing, Dog Racing, State Lotteries', 'Mastercard'),
  ],
  weapons: [
    // Approved by ISO/TC 68/SC 9 in September 2022 ("gun and ammunition stores"); Visa paused its roll-out in
    // March 2023 and some US states forbid it, so many gun shops still carry 5941 (see above).
    entry('5723', 'Gun and Ammunition Stores', 'ISO (2022); Visa announcement of 13 September 2022'),
  ],
  crypto: [
    entry(
      '6051',
      'Non-Financial Institutions – Non-Fiat Currency (for example: Cryptocurrency)',
      'Visa (the crypto part of 6051, see quasi_cash)',
    ),
  ],
} as const satisfies Record<string, readonly MccEntry[]>;

export type MccGroupName = keyof typeof MCC_GROUPS;

export const MCC_GROUP_NAMES = Object.keys(MCC_GROUPS) as MccGroupName[];

/** The groups every program blocks unless a card's controls say otherwise (spec part 1, fact 6). */
export const RESTRICTED_MCC_GROUPS: readonly MccGroupName[] = [
  'quasi_cash',
  'money_transfer',
  'gambling',
  'weapons',
  'crypto',
];

export const isMccGroupName = (value: unknown): value is MccGroupName =>
  typeof value === 'string' && Object.hasOwn(MCC_GROUPS, value);

const GROUP_MEMBERS = new Map<MccGroupName, ReadonlySet<string>>(
  MCC_GROUP_NAMES.map((group) => [group, new Set(MCC_GROUPS[group].map(({ mcc }) => mcc))]),
);

/** Whether `group` holds `mcc`. */
export const mccGroupHolds = (group: MccGroupName, mcc: string): boolean =>
  GROUP_MEMBERS.get(group)?.has(mcc) ?? false;

// ISO 18245's code space is 0000-9999; these ranges are reserved and never assigned to a merchant, so a code
// in them is a typo rather than a merchant the card could meet.
const ISO_18245_RESERVED: readonly [number, number][] = [
  [0, 699],
  [1000, 1499],
  [9000, 9199],
];

/** A merchant category code as ISO 18245 assigns them: four digits outside the reserved ranges. */
export function isMcc(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}$/.test(value)) return false;
  const code = Number(value);
  return !ISO_18245_RESERVED.some(([from, to]) => code >= from && code <= to);
}
