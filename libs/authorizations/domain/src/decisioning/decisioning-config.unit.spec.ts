import { deciderSpec } from '@cip/shared/testing';
import {
  decisioningDecider,
  type ConfigureDecisioning,
  type DecisioningCommand,
  type DecisioningEvent,
} from './decisioning-config';

const spec = deciderSpec(decisioningDecider);
const T0 = '2026-11-23T10:00:00.000Z';
const T1 = '2026-11-23T11:00:00.000Z';
const URL_A = 'https://decisions.example.com/a';
const URL_B = 'https://decisions.example.com/b';

const configure = (overrides: Partial<ConfigureDecisioning['data']> = {}): DecisioningCommand => ({
  type: 'ConfigureDecisioning',
  data: {
    distributorId: 'dst-1',
    url: URL_A,
    timeoutMs: 1000,
    onTimeout: 'decline',
    newSealedSecret: 'sealed-new',
    now: T1,
    ...overrides,
  },
});
const configured = (
  overrides: Partial<Extract<DecisioningEvent, { type: 'DecisioningConfigured' }>['data']> = {},
) =>
  ({
    type: 'DecisioningConfigured',
    data: {
      distributorId: 'dst-1',
      url: URL_A,
      timeoutMs: 1000,
      onTimeout: 'decline',
      sealedSecret: 'sealed-first',
      created: true,
      at: T0,
      ...overrides,
    },
  }) as DecisioningEvent;
const disabled: DecisioningEvent = { type: 'DecisioningDisabled', data: { distributorId: 'dst-1', at: T0 } };
const disable: DecisioningCommand = { type: 'DisableDecisioning', data: { now: T1 } };

describe('authorization decisioning configuration', () => {
  it('switches decisioning on with the new secret', () => {
    spec
      .given([])
      .when(configure())
      .then([configured({ sealedSecret: 'sealed-new', at: T1 })]);
  });

  it('changes the url, timeout or fallback and keeps the secret', () => {
    spec
      .given([configured()])
      .when(configure({ url: URL_B, timeoutMs: 1500, onTimeout: 'approve' }))
      .then([configured({ url: URL_B, timeoutMs: 1500, onTimeout: 'approve', created: false, at: T1 })]);
  });

  it('records nothing when nothing changes', () => {
    spec.given([configured()]).when(configure()).thenNothing();
  });

  it('switched off and on again gets a new secret', () => {
    spec
      .given([configured(), disabled])
      .when(configure())
      .then([configured({ sealedSecret: 'sealed-new', at: T1 })]);
  });

  it.each([99, 1501, 1000.5, Number.NaN])('refuses timeoutMs %s, naming the field', (timeoutMs) => {
    spec
      .given([])
      .when(configure({ timeoutMs }))
      .thenThrows('validation_error', /timeoutMs/);
  });

  it('refuses an unknown onTimeout, naming the field', () => {
    spec
      .given([configured()])
      .when(configure({ onTimeout: 'maybe' as 'approve' }))
      .thenThrows('validation_error', /onTimeout/);
  });

  it('switches off', () => {
    spec
      .given([configured()])
      .when(disable)
      .then([{ type: 'DecisioningDisabled', data: { distributorId: 'dst-1', at: T1 } }]);
  });

  it.each([
    ['never configured', []],
    ['already off', [configured(), disabled]],
  ])('refuses to switch off when %s (not_found)', (_what, given) => {
    spec
      .given(given as DecisioningEvent[])
      .when(disable)
      .thenThrows('not_found');
  });
});
