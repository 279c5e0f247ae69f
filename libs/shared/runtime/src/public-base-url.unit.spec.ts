import { readPlatformConfig } from './config';
import { publicBaseUrl } from './public-base-url';

describe('publicBaseUrl', () => {
  const of = (env: NodeJS.ProcessEnv, listeningPort?: number) =>
    publicBaseUrl(readPlatformConfig(env), listeningPort);

  it('is PUBLIC_BASE_URL when set, without trailing slashes', () => {
    expect(of({ PUBLIC_BASE_URL: 'https://cards.example.com//', PORT: '8080' })).toBe(
      'https://cards.example.com',
    );
    expect(of({ PUBLIC_BASE_URL: 'https://example.com/platform/' }, 4000)).toBe(
      'https://example.com/platform',
    );
  });

  it('is the URL the platform listens on otherwise', () => {
    expect(of({})).toBe('http://localhost:3000');
    expect(of({ PORT: '8080' })).toBe('http://localhost:8080');
    expect(of({ HOST: '::', PORT: '8080' })).toBe('http://localhost:8080');
    expect(of({ HOST: '127.0.0.1', PORT: '8080' })).toBe('http://127.0.0.1:8080');
    expect(of({ HOST: '10.1.2.3' })).toBe('http://10.1.2.3:3000');
    expect(of({ HOST: '::1', PORT: '8080' })).toBe('http://[::1]:8080');
    expect(of({ HOST: 'cards.internal', PORT: '0' }, 41234)).toBe('http://cards.internal:41234');
  });
});
