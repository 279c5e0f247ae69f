import { F } from './field-spec';
import { IsoMessage } from './iso-message';
import { transmissionDateTime } from './stan';

/** Network management information code of an echo test (DE-070). */
export const ECHO_TEST = '301';

/**
 * Responses are matched to requests by the response MTI, STAN (DE-011) and RRN (DE-037, when the request has
 * one); a responder must echo both, as ISO 8583 requires.
 */
export function matchKey(responseMti: string, message: IsoMessage): string {
  return `${responseMti}:${message.get(F.STAN)}:${message.get(F.RRN) ?? ''}`;
}

/** The 0800 echo test a side sends when its link is idle. */
export function echoRequest(stan: string, at: Date): IsoMessage {
  return new IsoMessage('0800', {
    [F.TRANSMISSION_DATE_TIME]: transmissionDateTime(at),
    [F.STAN]: stan,
    [F.NETWORK_MANAGEMENT_CODE]: ECHO_TEST,
  });
}

/** The 0810 answering an echo test: DE-007, DE-011 and DE-070 echoed, DE-039 approved. */
export function echoResponse(request: IsoMessage): IsoMessage {
  return new IsoMessage('0810', {
    [F.TRANSMISSION_DATE_TIME]: request.get(F.TRANSMISSION_DATE_TIME) ?? transmissionDateTime(new Date()),
    [F.STAN]: request.get(F.STAN) ?? '000000',
    [F.RESPONSE_CODE]: '00',
    [F.NETWORK_MANAGEMENT_CODE]: ECHO_TEST,
  });
}
