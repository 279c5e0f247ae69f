import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { registerProtocolErrors } from '@cip/gateway/http';
import { ApiExcludeController } from '@nestjs/swagger';
import { DomainError, ENVIRONMENTS, type Environment } from '@cip/shared/contracts';
import { LOGGER } from '@cip/shared/infrastructure';
import type { Logger } from '@cip/shared/runtime';
import { ACS_API, erroForRefusedRequest, type AcsApi, type ARes, type Erro } from '@cip/three-ds/contract';

/** Where the ACS is served on the platform's own port, when THREE_DS_BASE_URL does not say otherwise. */
export const ACS_PATH = '/3ds/acs';

// What the HTTP pipeline refuses at the ACS (a body that is not a JSON object, an unknown path, ...) is
// answered with the specification's Erro, as everything the ACS answers.
registerProtocolErrors({
  prefix: `${ACS_PATH}/`,
  render: (code, message) => ({ status: 200, body: erroForRefusedRequest(code, message, 'A', 'AReq') }),
});

/**
 * The access control server at the 3DS host: EMV 3DS 2.2 messages from the directory server, outside /v1
 * and without an API key (production puts it behind mutual TLS with the DS). `POST {base}/{environment}/areq`
 * takes an AReq and answers (HTTP 200, as the specification does) its ARes, or an Erro for a malformed
 * message. A failure of the ACS itself is an Erro 404 (transient system failure), never a 500. Nothing of the
 * message is logged (it carries the PAN).
 */
@ApiExcludeController()
@Controller(ACS_PATH.slice(1))
export class AcsController {
  constructor(
    @Inject(ACS_API) private readonly acs: AcsApi,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Post(':environment/areq')
  @HttpCode(200)
  async authenticationRequest(
    @Param('environment') environment: string,
    @Body() body: unknown,
  ): Promise<ARes | Erro> {
    if (!(ENVIRONMENTS as readonly string[]).includes(environment)) {
      throw new DomainError('not_found', `No access control server for ${environment.slice(0, 20)}`);
    }
    try {
      return await this.acs.authenticationRequest(environment as Environment, body);
    } catch (error) {
      this.logger.error({ err: error instanceof Error ? error.message : 'unknown' }, '3DS AReq failed');
      return erroForRefusedRequest('internal_error', 'ACS', 'A', 'AReq');
    }
  }
}
