import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

// One Kafka version: KAFKA_VERSION in tools/ci/kafka.sh (the broker `npm test` runs on in CI). The images
// of docker-compose.yml and of the public workflow's service container must be the same release, or the
// suites would prove one version and the platform run another.
const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

const kafkaVersion = /^KAFKA_VERSION=(\d+\.\d+\.\d+)$/m.exec(read('tools/ci/kafka.sh'))?.[1];

describe('the Kafka version, in tools/ci/kafka.sh and everywhere an image names it', () => {
  it('is set in tools/ci/kafka.sh, a 3.9 release', () => {
    expect(kafkaVersion).toMatch(/^3\.9\.\d+$/);
  });

  it("is docker-compose.yml's kafka image tag", () => {
    const compose = parse(read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, { image?: string }>;
    };
    expect(compose.services.kafka.image).toBe(`apache/kafka:${kafkaVersion}`);
  });

  it("is the distributed workflow's kafka service image tag", () => {
    const workflow = parse(read('.github/workflows/distributed.yml')) as {
      jobs: Record<string, { services?: Record<string, { image?: string }> }>;
    };
    const images = Object.values(workflow.jobs).flatMap((job) =>
      Object.values(job.services ?? {})
        .map((service) => service.image ?? '')
        .filter((image) => image.startsWith('apache/kafka:')),
    );
    expect(images).toEqual([`apache/kafka:${kafkaVersion}`]);
  });
});
