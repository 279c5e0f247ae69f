import { PUBLIC_EVENTS_GROUP } from '@cip/events/service';
import { READ_MODELS } from '@cip/platform/registry';
import { ConsumerHost } from '@cip/shared/infrastructure';
import { Harness, startHarness } from './testing/platform-harness';

// The CLI verifies and rebuilds the registry's read models; if the platform kept one the registry
// lacks, an operator's rebuild would silently leave it stale.
describe('platform registry', () => {
  let harness: Harness;
  beforeAll(async () => (harness = await startHarness()));
  afterAll(() => harness.close());

  it('lists every consumer group the running platform keeps a read model with', () => {
    const running = harness.platform.app
      .get(ConsumerHost)
      .listDefinitions()
      .map((d) => d.group);
    const registered = READ_MODELS.map((model) => model.group);
    const projections = running.filter(
      (group) => group.startsWith('projection.') || group === PUBLIC_EVENTS_GROUP,
    );
    expect(registered).toEqual(expect.arrayContaining(projections));
    expect(running).toEqual(expect.arrayContaining(registered));
  });
});
