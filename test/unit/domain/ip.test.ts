import { cidrContains, classifyAddress, isValidIpOrCidr, parseIpv6 } from '../../../shared/domain/ip.js';

describe('IP addresses', () => {
  it('matches IPv4 and IPv6 CIDR ranges and single addresses', () => {
    expect(cidrContains('10.0.0.0/8', '10.200.3.4')).toBe(true);
    expect(cidrContains('10.0.0.0/8', '11.0.0.1')).toBe(false);
    expect(cidrContains('203.0.113.7', '203.0.113.7')).toBe(true);
    expect(cidrContains('203.0.113.7', '203.0.113.8')).toBe(false);
    expect(cidrContains('2001:db8::/32', '2001:db8:1::5')).toBe(true);
    expect(cidrContains('2001:db8::/32', '2001:db9::5')).toBe(false);
  });

  it('judges an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(cidrContains('203.0.113.0/24', '::ffff:203.0.113.9')).toBe(true);
    expect(classifyAddress('::ffff:127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::ffff:169.254.169.254')).toBe('private');
    expect(classifyAddress('::ffff:10.1.2.3')).toBe('private');
  });

  it('classifies private, loopback, link-local and metadata targets', () => {
    for (const a of ['10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', 'fe80::1', 'fd00::1', 'fd00:ec2::254']) {
      expect([a, classifyAddress(a)]).toEqual([a, 'private']);
    }
    expect(classifyAddress('127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::1')).toBe('loopback');
    expect(classifyAddress('93.184.216.34')).toBe('public');
    expect(classifyAddress('2606:4700::1111')).toBe('public');
    expect(classifyAddress('not-an-ip')).toBe('private');
  });

  it('parses IPv6 forms and rejects malformed ones', () => {
    expect(parseIpv6('::1')).toEqual([...Array(15).fill(0), 1]);
    expect(parseIpv6('1::2::3')).toBeNull();
    expect(parseIpv6('12345::')).toBeNull();
    expect(isValidIpOrCidr('10.0.0.0/8')).toBe(true);
    expect(isValidIpOrCidr('10.0.0.0/33')).toBe(false);
    expect(isValidIpOrCidr('300.1.1.1')).toBe(false);
  });
});
