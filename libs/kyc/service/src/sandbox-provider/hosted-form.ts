import type { FormField, HostedFormDefinition } from '@cip/kyc/contract';
import type { HostedKycType, KycSubmission, PostalAddress, RfiSubtype } from '@cip/kyc/domain';

export type { FormField, HostedFormDefinition };

// ---------------------------------------------------------------------------------------------------
// The hosted form of the sandbox provider: which fields each KYC type asks for, and their validation.
// ---------------------------------------------------------------------------------------------------

const text = (name: string, label: string, maxLength: number, extra: Partial<FormField> = {}): FormField => ({
  name,
  label,
  input: 'text',
  required: true,
  maxLength,
  ...extra,
});

const NAME_FIELDS: FormField[] = [
  text('firstName', 'First name', 100, { autocomplete: 'given-name' }),
  text('lastName', 'Last name', 100, { autocomplete: 'family-name' }),
  {
    name: 'dateOfBirth',
    label: 'Date of birth',
    input: 'date',
    required: true,
    maxLength: 10,
    autocomplete: 'bday',
  },
];

const ADDRESS_FIELDS: FormField[] = [
  text('addressLine1', 'Address', 100, { autocomplete: 'address-line1' }),
  text('addressLine2', 'Address line 2', 100, { required: false, autocomplete: 'address-line2' }),
  text('city', 'City', 60, { autocomplete: 'address-level2' }),
  text('state', 'State or region', 12, {
    required: false,
    autocomplete: 'address-level1',
    hint: 'At most 12 characters',
  }),
  text('postalCode', 'Postal code', 16, { autocomplete: 'postal-code' }),
  text('country', 'Country', 2, { autocomplete: 'country', hint: 'Two-letter code, for example FR' }),
];

const DOCUMENT_FIELD = text('documentNumber', 'Identity document number', 40, {
  hint: 'Passport or national identity card',
});

const RFI_QUESTIONS: Record<RfiSubtype, string> = {
  onboarding: 'Tell us about your occupation and what you will use this account for.',
  transaction_monitoring: 'Explain the recent transactions we asked about, and where the funds came from.',
  additional_id: 'Tell us which additional identity document you hold and how we can verify it.',
};

export function hostedFormOf(type: HostedKycType, rfiSubtype: RfiSubtype | null): HostedFormDefinition {
  switch (type) {
    case 'full':
      return {
        title: 'Verify your identity',
        intro: 'Enter your details exactly as they appear on your identity document.',
        fields: [...NAME_FIELDS, ...ADDRESS_FIELDS, DOCUMENT_FIELD],
      };
    case 'light':
      return {
        title: 'Verify your identity',
        intro: 'Enter your name, date of birth and home address.',
        fields: [...NAME_FIELDS, ...ADDRESS_FIELDS],
      };
    case 'shipping':
      return {
        title: 'Your shipping address',
        intro: 'Where should we send your card?',
        fields: ADDRESS_FIELDS,
      };
    case 'rfi':
      return {
        title: 'Request for information',
        intro: RFI_QUESTIONS[rfiSubtype ?? 'transaction_monitoring'],
        fields: [
          { name: 'explanation', label: 'Your answer', input: 'textarea', required: true, maxLength: 2000 },
        ],
      };
    default: {
      const unknown: never = type;
      throw new Error(`No hosted form for ${String(unknown)}`);
    }
  }
}

export type FormValues = Record<string, string>;
export type FormErrors = Record<string, string>;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const COUNTRY = /^[A-Za-z]{2}$/;
const MIN_AGE_YEARS = 18;

function checkDateOfBirth(value: string, now: Date): string | null {
  const match = DATE.exec(value);
  const date = match ? new Date(Date.UTC(+match[1], +match[2] - 1, +match[3])) : null;
  if (!date || date.toISOString().slice(0, 10) !== value) return 'Enter a date as YYYY-MM-DD';
  const adult = new Date(Date.UTC(now.getUTCFullYear() - MIN_AGE_YEARS, now.getUTCMonth(), now.getUTCDate()));
  if (date > adult) return `You must be at least ${MIN_AGE_YEARS} years old`;
  if (date.getUTCFullYear() < 1900) return 'Enter your real date of birth';
  return null;
}

/**
 * Validates what the user posted (server-side: the page works without script) and builds the KYC
 * submission; or returns an error per field to show on the page again.
 */
export function parseHostedForm(
  form: HostedFormDefinition,
  type: HostedKycType,
  posted: Record<string, unknown>,
  now: Date,
): { submission: KycSubmission } | { errors: FormErrors; values: FormValues } {
  const values: FormValues = {};
  const errors: FormErrors = {};
  for (const field of form.fields) {
    const raw = posted[field.name];
    const value = typeof raw === 'string' ? raw.trim() : '';
    values[field.name] = value;
    if (!value) {
      if (field.required) errors[field.name] = `Enter your ${field.label.toLowerCase()}`;
      continue;
    }
    if (value.length > field.maxLength) errors[field.name] = `Use at most ${field.maxLength} characters`;
    else if (field.name === 'dateOfBirth') {
      const problem = checkDateOfBirth(value, now);
      if (problem) errors[field.name] = problem;
    } else if (field.name === 'country' && !COUNTRY.test(value)) {
      errors[field.name] = 'Enter a two-letter country code, for example FR';
    } else if (field.name === 'explanation' && value.length < 10) {
      errors[field.name] = 'Please give a little more detail';
    }
  }
  if (Object.keys(errors).length) return { errors, values };

  const address = (): PostalAddress => ({
    addressLine1: values.addressLine1,
    ...(values.addressLine2 ? { addressLine2: values.addressLine2 } : {}),
    city: values.city,
    ...(values.state ? { state: values.state } : {}),
    postalCode: values.postalCode,
    country: values.country.toUpperCase(),
  });
  switch (type) {
    case 'full':
    case 'light':
      return {
        submission: {
          kind: 'identity',
          firstName: values.firstName,
          lastName: values.lastName,
          dateOfBirth: values.dateOfBirth,
          address: address(),
          ...(values.documentNumber ? { documentNumber: values.documentNumber } : {}),
        },
      };
    case 'shipping':
      return { submission: { kind: 'shipping', shippingAddress: address() } };
    case 'rfi':
      return { submission: { kind: 'rfi', explanation: values.explanation } };
    default: {
      const unknown: never = type;
      throw new Error(`No hosted form for ${String(unknown)}`);
    }
  }
}
