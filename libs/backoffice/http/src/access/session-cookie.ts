import type { FastifyReply, FastifyRequest } from 'fastify';

/** The session cookie (docs/operator-api.md): HttpOnly, Secure, SameSite=Strict, sent to the operator API only. */
export const SESSION_COOKIE = 'cip_staff_session';
const COOKIE_OPTIONS = { httpOnly: true, secure: true, sameSite: 'strict', path: '/operator' } as const;

export const sessionCookieOf = (request: FastifyRequest): string | undefined =>
  request.cookies?.[SESSION_COOKIE];

export const setSessionCookie = (reply: FastifyReply, value: string) =>
  reply.setCookie(SESSION_COOKIE, value, COOKIE_OPTIONS);

export const clearSessionCookie = (reply: FastifyReply) => reply.clearCookie(SESSION_COOKIE, COOKIE_OPTIONS);

/**
 * A same-origin request, the second half of the CSRF defence: Fetch metadata when the browser sends it
 * (`Sec-Fetch-Site: same-origin`), else an `Origin` whose host is the request's own. A request with neither
 * is refused: every browser sends one of them on a POST, and other clients can add `Origin`.
 */
export function isSameOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site === 'same-origin';
  const origin = request.headers.origin;
  if (typeof origin !== 'string' || origin === 'null') return false;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}
