// ---------------------------------------------------------------------------------------------------
// The HTML shell of the hosted pages (the KYC provider's form, the card reveal page): server-rendered,
// one inline style, no script. Each page keeps its own response headers next to its HTML, since their
// policies differ on purpose (the reveal page may be framed by any origin, the KYC form by none).
// ---------------------------------------------------------------------------------------------------

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for an HTML element or a quoted attribute. */
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** A whole hosted page: `title` is escaped, `body` is HTML (the caller escapes what it puts in it). */
export function renderHostedPage(page: { title: string; style: string; body: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(page.title)}</title>
<style>${page.style}</style>
</head>
<body>
<main>
${page.body}
</main>
</body>
</html>`;
}
