/** Target safety, the retry schedule and the signature on their own. */
import { Webhook } from 'standardwebhooks';
import { nextDelayMs } from '../src/schedule';
import { newSecret, signatureHeader } from '../src/signature';
import { allowList, BlockedTargetError, isAllowedAddress, resolveTarget } from '../src/target-safety';

describe('target safety', () => {
  const none = allowList([]);

  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
  ])('denies the non-global address %s', (address) => {
    expect(isAllowedAddress(address, none)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111'])('allows the global address %s', (address) => {
    expect(isAllowedAddress(address, none)).toBe(true);
  });

  it('allows loopback only through the allow list', () => {
    const loopback = allowList(['127.0.0.0/8', '::1/128']);
    expect(isAllowedAddress('127.0.0.1', loopback)).toBe(true);
    expect(isAllowedAddress('::1', loopback)).toBe(true);
    expect(isAllowedAddress('10.0.0.1', loopback)).toBe(false);
  });

  it('resolves a name and refuses it when it points inside', async () => {
    await expect(resolveTarget('localhost', none)).rejects.toBeInstanceOf(BlockedTargetError);
    await expect(resolveTarget('[::1]', none)).rejects.toBeInstanceOf(BlockedTargetError);
    expect(await resolveTarget('127.0.0.1', allowList(['127.0.0.0/8']))).toEqual({ address: '127.0.0.1', family: 4 });
  });
});

describe('retry schedule', () => {
  const schedule = [0, 5000, 300_000];

  it('waits the scheduled delay plus up to a fifth of it, then gives up', () => {
    expect(nextDelayMs(schedule, 1, undefined, () => 0)).toBe(5000);
    expect(nextDelayMs(schedule, 1, undefined, () => 1)).toBe(6000);
    expect(nextDelayMs(schedule, 2, undefined, () => 0.5)).toBe(330_000);
    expect(nextDelayMs(schedule, 3)).toBeUndefined();
  });

  it('never retries before the Retry-After, and keeps the schedule when it is shorter', () => {
    expect(nextDelayMs(schedule, 1, 60_000, () => 0)).toBe(60_000);
    expect(nextDelayMs(schedule, 1, 1000, () => 0)).toBe(5000);
  });
});

describe('signature', () => {
  it('is verified by the standardwebhooks package; a previous secret signs only during its grace', () => {
    const current = newSecret();
    const previous = newSecret();
    const timestamp = Math.floor(Date.now() / 1000);
    const body = '{"a":1}';
    const header = signatureHeader(
      { secret: current, previousSecret: previous, previousSecretUntil: new Date(Date.now() + 1000) },
      'msg_1',
      timestamp,
      body,
    );
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': header };
    expect(new Webhook(current).verify(body, headers)).toEqual({ a: 1 });
    expect(new Webhook(previous).verify(body, headers)).toEqual({ a: 1 });
    const expired = signatureHeader(
      { secret: current, previousSecret: previous, previousSecretUntil: new Date(Date.now() - 1) },
      'msg_1',
      timestamp,
      body,
    );
    expect(() => new Webhook(previous).verify(body, { ...headers, 'webhook-signature': expired })).toThrow();
  });
});
