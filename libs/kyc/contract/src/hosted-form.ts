/** One field of a hosted verification form. */
export interface FormField {
  name: string;
  label: string;
  input: 'text' | 'date' | 'textarea';
  required: boolean;
  maxLength: number;
  autocomplete?: string;
  hint?: string;
}

/** The form a hosted page shows for a KYC (its fields depend on the type and RFI subtype). */
export interface HostedFormDefinition {
  title: string;
  intro: string;
  fields: FormField[];
}
