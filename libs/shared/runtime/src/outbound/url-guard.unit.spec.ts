import {
  embeddedIpv4,
  isForbiddenAddress,
  parseWebhookUrl,
  resolveDeliveryAddress,
  Resolver,
} from './url-guard';

describe('webhook url guard', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::10.0.0.1',
    '64:ff9b:1::808:808',
    '2002:7f00:1::',
    '2002:c0a8:101::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '::7f00:1',
    'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
  ])('allows the public address %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  // Issue 38: every IPv6 form that carries a private, loopback or link-local IPv4 address.
  it.each([
    ['IPv4-mapped', '::ffff:10.0.0.1'],
    ['IPv4-mapped', '::ffff:c0a8:101'],
    ['IPv4-translated', '::ffff:0:127.0.0.1'],
    ['IPv4-translated', '::ffff:0:7f00:1'],
    ['IPv4-translated', '::ffff:0:169.254.169.254'],
    ['IPv4-translated', '::ffff:0:10.1.2.3'],
    ['IPv4-translated', '::ffff:0:192.168.0.1'],
    ['IPv4-compatible', '::127.0.0.1'],
    ['IPv4-compatible', '::a9fe:a9fe'],
    ['IPv4-compatible', '::172.16.0.1'],
    ['NAT64', '64:ff9b::127.0.0.1'],
    ['NAT64', '64:ff9b::c0a8:1'],
    ['NAT64 local-use', '64:ff9b:1::8.8.8.8'],
    ['NAT64 local-use', '64:ff9b:1:2::a00:1'],
    ['6to4', '2002:a9fe:a9fe::'],
    ['6to4', '2002:0a00:0001:1::1'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
    ['Teredo', '2001:0:808:808:8000:63bf:f5ff:fffe'],
  ])('refuses the %s address %s (it carries a private IPv4 address)', (form, address) => {
    expect(embeddedIpv4(address)?.form).toBe(form);
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it('reads the IPv4 address each IPv6 form carries', () => {
    expect(embeddedIpv4('::ffff:0:7f00:1')).toEqual({
      form: 'IPv4-translated',
      ipv4: ['127.0.0.1'],
      only: true,
    });
    expect(embeddedIpv4('::ffff:a00:1')).toEqual({ form: 'IPv4-mapped', ipv4: ['10.0.0.1'], only: true });
    expect(embeddedIpv4('::c0a8:101')).toEqual({
      form: 'IPv4-compatible',
      ipv4: ['192.168.1.1'],
      only: true,
    });
    expect(embeddedIpv4('64:ff9b::a9fe:a9fe')?.ipv4).toEqual(['169.254.169.254']);
    expect(embeddedIpv4('2002:c0a8:101::1')?.ipv4).toEqual(['192.168.1.1']);
    // Teredo: the server, then the client with its bits inverted (0xf5fffffe is 10.0.0.1).
    expect(embeddedIpv4('2001:0:808:808:8000:63bf:f5ff:fffe')?.ipv4).toEqual(['8.8.8.8', '10.0.0.1']);
    expect(embeddedIpv4('2606:4700:4700::1111')).toBeNull();
    expect(embeddedIpv4('10.0.0.1')).toBeNull();
  });

  it.each(['::ffff:0:8.8.8.8', '::8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::1'])(
    'allows %s, which carries a public IPv4 address',
    (address) => {
      expect(isForbiddenAddress(address)).toBe(false);
    },
  );

  it('refuses the rest of the reserved ::/8', () => {
    expect(isForbiddenAddress('::1:0:0:7f00:1')).toBe(true);
    expect(isForbiddenAddress('::ff:0:0:0:808:808')).toBe(true);
  });

  it('accepts http(s) urls only, without credentials', () => {
    expect(parseWebhookUrl('https://hooks.example.com/in#frag').toString()).toBe(
      'https://hooks.example.com/in',
    );
    for (const bad of [
      'ftp://example.com/',
      'file:///etc/passwd',
      'gopher://x',
      'https://user:pw@example.com/',
      'not a url',
      '',
    ]) {
      expect(() => parseWebhookUrl(bad)).toThrow(expect.objectContaining({ code: 'validation_error' }));
    }
  });

  it('normalises numeric host spellings before checking them', async () => {
    const policy = { allowPrivate: false, resolver: (async () => []) as Resolver };
    for (const raw of [
      'http://0x7f.1/',
      'http://2130706433/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:0:127.0.0.1]:8080/',
      'http://[::127.0.0.1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://0177.0.0.1/',
    ]) {
      const url = parseWebhookUrl(raw);
      await expect(resolveDeliveryAddress(url.hostname, policy)).rejects.toMatchObject({
        code: 'validation_error',
      });
    }
  });

  it('refuses a host when any of its addresses is private, and allows it when private urls are allowed', async () => {
    const resolver: Resolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    await expect(resolveDeliveryAddress('mixed.example', { allowPrivate: false, resolver })).rejects.toThrow(
      /10\.0\.0\.5/,
    );
    await expect(resolveDeliveryAddress('mixed.example', { allowPrivate: true, resolver })).resolves.toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('refuses a host that does not resolve', async () => {
    const resolver: Resolver = async () => {
      throw new Error('ENOTFOUND');
    };
    await expect(resolveDeliveryAddress('nowhere.invalid', { allowPrivate: true, resolver })).rejects.toThrow(
      /does not resolve/,
    );
  });
});
