import { escapeHtml, renderHostedPage } from '@cip/gateway/http';
import type { FormField, HostedFormDefinition } from '@cip/kyc/contract';

type FormValues = Record<string, string>;
type FormErrors = Record<string, string>;

// ---------------------------------------------------------------------------------------------------
// HTML of the sandbox provider's hosted flow: server-rendered, no script, every value escaped.
// ---------------------------------------------------------------------------------------------------

/** Headers of every hosted page: nothing loads from elsewhere, no framing, no caching, no referrer leak. */
export const HOSTED_PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const STYLE = `
  *{box-sizing:border-box}
  body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f5f9;color:#1d2433}
  main{max-width:560px;margin:40px auto;padding:32px;background:#fff;border-radius:12px;box-shadow:0 2px 12px rgba(20,30,60,.08)}
  .brand{font-size:13px;letter-spacing:.08em;text-transform:uppercase;color:#5b6478;margin:0 0 8px}
  h1{font-size:24px;margin:0 0 8px}
  p.intro{margin:0 0 24px;color:#3d4659}
  label{display:block;font-weight:600;margin:0 0 4px}
  .field{margin:0 0 16px}
  .hint{font-size:13px;color:#5b6478;font-weight:400}
  input,textarea{width:100%;padding:10px 12px;font:inherit;border:1px solid #b8c0d0;border-radius:8px}
  textarea{min-height:140px}
  input:focus,textarea:focus{outline:2px solid #2f5bea;border-color:#2f5bea}
  .invalid input,.invalid textarea{border-color:#c62828}
  .error{color:#c62828;font-size:14px;margin:4px 0 0}
  .summary{background:#fdecea;border:1px solid #f5c2c0;color:#8e1c1c;padding:12px 16px;border-radius:8px;margin:0 0 20px}
  button{width:100%;padding:12px;font:inherit;font-weight:600;color:#fff;background:#2f5bea;border:0;border-radius:8px;cursor:pointer}
  button:hover{background:#2147c4}
  .note{font-size:13px;color:#5b6478;margin:16px 0 0}`;

function page(title: string, body: string): string {
  return renderHostedPage({
    title,
    style: STYLE,
    body: `<p class="brand">Identity verification &middot; sandbox</p>\n${body}`,
  });
}

function fieldHtml(field: FormField, value: string, error: string | undefined): string {
  const id = `f-${field.name}`;
  const common = [
    `id="${id}"`,
    `name="${field.name}"`,
    `maxlength="${field.maxLength}"`,
    field.required ? 'required' : '',
    field.autocomplete ? `autocomplete="${field.autocomplete}"` : '',
    error ? `aria-invalid="true" aria-describedby="${id}-error"` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const control =
    field.input === 'textarea'
      ? `<textarea ${common}>${escapeHtml(value)}</textarea>`
      : `<input type="${field.input}" ${common} value="${escapeHtml(value)}">`;
  const optional = field.required ? '' : ' <span class="hint">(optional)</span>';
  const hint = field.hint ? ` <span class="hint">${escapeHtml(field.hint)}</span>` : '';
  return `<div class="field${error ? ' invalid' : ''}">
<label for="${id}">${escapeHtml(field.label)}${optional}${hint}</label>
${control}${error ? `\n<p class="error" id="${id}-error">${escapeHtml(error)}</p>` : ''}
</div>`;
}

export function renderFormPage(options: {
  form: HostedFormDefinition;
  values: FormValues;
  errors: FormErrors;
  csrfToken: string;
}): string {
  const { form, values, errors } = options;
  const count = Object.keys(errors).length;
  const summary = count
    ? `<div class="summary" role="alert">Please correct ${count === 1 ? 'the field' : `the ${count} fields`} marked below.</div>\n`
    : '';
  const fields = form.fields.map((f) => fieldHtml(f, values[f.name] ?? '', errors[f.name])).join('\n');
  // The form posts back to this very address (the link), so it needs no action URL of its own.
  return page(
    form.title,
    `<h1>${escapeHtml(form.title)}</h1>
<p class="intro">${escapeHtml(form.intro)}</p>
${summary}<form method="post" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(options.csrfToken)}">
${fields}
<button type="submit">Submit</button>
</form>
<p class="note">Your answers go to the verification provider only. You can submit this form once.</p>`,
  );
}

export function renderSubmittedPage(): string {
  return page(
    'Thank you',
    `<h1>Thank you</h1>
<p class="intro">Your information has been submitted and is being reviewed. You can close this page.</p>`,
  );
}

export function renderDeadLinkPage(): string {
  return page(
    'Link no longer valid',
    `<h1>This link has expired or is no longer valid</h1>
<p class="intro">Verification links work for 14 days and only until the verification is submitted or closed.
Please ask the service that sent you here for a new link.</p>`,
  );
}

export function renderProblemPage(message: string): string {
  return page(
    'Something went wrong',
    `<h1>Something went wrong</h1>\n<p class="intro">${escapeHtml(message)}</p>`,
  );
}
