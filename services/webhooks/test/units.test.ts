/** Target safety, the retry schedule and the signature on their own. */
import { Webhook } from 'standardwebhooks';
import { nextDelayMs } from '../src/schedule';
import { newSecret, signatureHeader } from '../src/signature';
import { lookup } from 'node:dns/promises';
import {
  allowList,
  BlockedTargetError,
  isAllowedAddress,
  type LookUp,
  ResolveError,
  resolveTarget,
  TargetResolver,
} from '../src/target-safety';

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

describe('target hosts resolved for attempts', () => {
  const loopback = allowList(['127.0.0.0/8', '::1/128']);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** The system's lookup, or the answers given (an error is a failed lookup), counting the hosts asked for. */
  function countingLookUp(answers?: Array<Array<{ address: string; family: number }> | Error>) {
    const asked: string[] = [];
    const lookUp: LookUp = (host) => {
      asked.push(host);
      const answer = answers?.shift();
      if (answer === undefined) return lookup(host, { all: true, verbatim: true });
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    };
    return { asked, lookUp };
  }

  it('looks a host up once for the attempts of a while, then again', async () => {
    const { asked, lookUp } = countingLookUp();
    const resolver = new TargetResolver(loopback, 200, 100, lookUp);
    const together = await Promise.all(Array.from({ length: 20 }, () => resolver.resolve('localhost')));
    expect(new Set(together.map(({ address }) => address)).size).toBe(1);
    expect(['127.0.0.1', '::1']).toContain(together[0].address);
    await resolver.resolve('localhost');
    expect(asked).toEqual(['localhost']);
    await sleep(250);
    await resolver.resolve('localhost');
    expect(asked).toEqual(['localhost', 'localhost']);
  });

  it('checks every new answer: a host that moves inside is refused at its next lookup', async () => {
    const { asked, lookUp } = countingLookUp([
      [{ address: '93.184.216.34', family: 4 }],
      [{ address: '10.0.0.7', family: 4 }],
    ]);
    const resolver = new TargetResolver(allowList([]), 50, 100, lookUp);
    expect(await resolver.resolve('receiver.example')).toEqual({ address: '93.184.216.34', family: 4 });
    expect(await resolver.resolve('receiver.example')).toEqual({ address: '93.184.216.34', family: 4 });
    await sleep(80);
    await expect(resolver.resolve('receiver.example')).rejects.toBeInstanceOf(BlockedTargetError);
    // A refusal is an answer like an address and is kept as long.
    await expect(resolver.resolve('receiver.example')).rejects.toBeInstanceOf(BlockedTargetError);
    expect(asked).toEqual(['receiver.example', 'receiver.example']);
  });

  it('keeps no failed lookup: the next attempt asks again', async () => {
    const { asked, lookUp } = countingLookUp([
      new Error('getaddrinfo EAI_AGAIN receiver.example'),
      [{ address: '93.184.216.34', family: 4 }],
    ]);
    const resolver = new TargetResolver(allowList([]), 30_000, 100, lookUp);
    await expect(resolver.resolve('receiver.example')).rejects.toBeInstanceOf(ResolveError);
    expect(await resolver.resolve('receiver.example')).toEqual({ address: '93.184.216.34', family: 4 });
    expect(await resolver.resolve('receiver.example')).toEqual({ address: '93.184.216.34', family: 4 });
    expect(asked).toEqual(['receiver.example', 'receiver.example']);
  });

  it('keeps at most its number of hosts, dropping the one looked up longest ago', async () => {
    const { asked, lookUp } = countingLookUp(
      Array.from({ length: 4 }, () => [{ address: '93.184.216.34', family: 4 }]),
    );
    const resolver = new TargetResolver(allowList([]), 30_000, 2, lookUp);
    for (const host of ['a.example', 'b.example', 'c.example', 'c.example', 'b.example', 'a.example']) {
      await resolver.resolve(host);
    }
    expect(asked).toEqual(['a.example', 'b.example', 'c.example', 'a.example']);
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
