/**
 * A card reveal link (`POST /v1/cards/{id}/reveal`) opened the way a cardholder does, over fetch: the page
 * (its GET shows a button and uses nothing), then the button (the page's form posts back to its own url,
 * no field), which uses the link and answers the details. `base` is where the platform listens now (the
 * link's host may be another: its path identifies it).
 */
export async function revealOverHttp(link: string, base: string): Promise<{ status: number; html: string }> {
  const url = new URL(new URL(link).pathname, base);
  const page = await fetch(url);
  await page.text();
  if (page.status !== 200) return { status: page.status, html: '' };
  const details = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  return { status: details.status, html: await details.text() };
}

/** The card number as the reveal page shows it (in groups of four, each its own element), as one number. */
export const panOnRevealPage = (html: string): string | undefined =>
  /<dd class="pan">(.*?)<\/dd>/.exec(html)?.[1].replace(/<[^>]+>/g, '');
