/**
 * The `hub` command's flags: parsed with node:util parseArgs, so an unknown flag, a flag without
 * its value, a stray argument and an id that is not a number stop the command, naming the flag,
 * before anything is opened.
 */
import path from 'node:path';
import { main, UsageError } from '../src/cli';

const DEMO_WORLD = path.resolve(__dirname, '../../world/demo.json');

async function refusal(argv: string[]): Promise<string> {
  const error = await main(argv).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(UsageError);
  return (error as Error).message.split('\n')[0];
}

it('refuses an id flag that is not a whole number, naming it', async () => {
  expect(await refusal(['account', 'create', '--name', 'X', '--role', 'partner', '--partner-id', 'x'])).toBe(
    "--partner-id must be a positive whole number, not 'x'",
  );
  expect(await refusal(['account', 'create', '--name', 'X', '--role', 'provider', '--provider-id', '1.5'])).toBe(
    "--provider-id must be a positive whole number, not '1.5'",
  );
});

it('refuses an unknown flag, a flag without its value and a stray argument', async () => {
  expect(await refusal(['world', 'check', DEMO_WORLD, '--if-empty'])).toMatch(/^Unknown option '--if-empty'/);
  expect(await refusal(['account', 'create', '--name'])).toMatch(/'--name <value>' argument missing/);
  expect(await refusal(['world', 'load'])).toBe('A file is missing');
  expect(await refusal(['world', 'check', DEMO_WORLD, 'extra.json'])).toBe("Unexpected argument 'extra.json'");
  expect(await refusal(['start', '--sevices', 'booking'])).toMatch(/^Unknown option '--sevices'/);
  expect(await refusal(['openapi'])).toBe('A file is missing');
});

it('runs a well-formed command', async () => {
  const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    await main(['world', 'check', DEMO_WORLD]);
    expect(log).toHaveBeenCalledWith(`${DEMO_WORLD} is a valid world`);
  } finally {
    log.mockRestore();
  }
});
