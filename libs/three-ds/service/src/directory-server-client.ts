import type { RReq } from '@cip/three-ds/contract';

/** How long the ACS waits for the directory server's RRes before trying again later. */
const RESULT_TIMEOUT_MS = 10_000;
/** An RRes is a few hundred bytes: a larger answer is not one. */
const MAX_ANSWER_BYTES = 16 * 1024;

/**
 * Posts an RReq to the directory server's URL (the AReq's `dsURL`) as EMV 3DS messages travel: JSON over
 * HTTP(S), `application/json; charset=utf-8`. Returns the parsed answer (the caller validates it as an
 * RRes); throws on a network error, a timeout, a non-2xx status or a body that is not JSON.
 */
export async function sendResultToDirectoryServer(dsURL: string, rreq: RReq): Promise<unknown> {
  const response = await fetch(dsURL, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', accept: 'application/json' },
    body: JSON.stringify(rreq),
    signal: AbortSignal.timeout(RESULT_TIMEOUT_MS),
    redirect: 'error',
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`The directory server answered the RReq with HTTP ${response.status}`);
  if (text.length > MAX_ANSWER_BYTES)
    throw new Error('The directory server answered the RReq with too large a body');
  return JSON.parse(text) as unknown;
}
