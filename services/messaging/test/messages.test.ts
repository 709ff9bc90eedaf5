/** The message rules on their own: who sees, who confirms, who hears, and declaredAt. */
import type { Caller } from '@hub/shared';
import { confirmedAudience, createdAudience, isVisibleTo, mayConfirm, parseDeclaredAt } from '../src/messages';

const partner: Caller = {
  accountId: 2,
  role: 'partner',
  name: 'p',
  partnerId: 1,
  providerId: null,
  canForceProvider: false,
  allowAllProviders: false,
};
const provider: Caller = {
  accountId: 5,
  role: 'provider',
  name: 'q',
  partnerId: null,
  providerId: 10,
  canForceProvider: false,
  allowAllProviders: false,
};
const message = { partner_id: 1, provider_id: 10, is_internal: false };

describe('createdAudience', () => {
  it('tells only the receiving party', () => {
    expect(createdAudience({ ...message, sender_type: 'partner' })).toEqual({ providerId: 10 });
    expect(createdAudience({ ...message, sender_type: 'provider' })).toEqual({ partnerId: 1 });
  });

  it('tells nobody of an internal note, a case without provider or a message without sender party', () => {
    expect(createdAudience({ ...message, sender_type: 'provider', is_internal: true })).toBeNull();
    expect(createdAudience({ ...message, sender_type: 'partner', provider_id: null })).toBeNull();
    expect(createdAudience({ ...message, sender_type: null })).toBeNull();
  });
});

describe('confirmedAudience', () => {
  it('tells only the party that created the message', () => {
    expect(confirmedAudience({ ...message, sender_type: 'partner' })).toEqual({ partnerId: 1 });
    expect(confirmedAudience({ ...message, sender_type: 'provider' })).toEqual({ providerId: 10 });
    expect(confirmedAudience({ ...message, sender_type: null })).toBeNull();
  });
});

describe('visibility and confirmation', () => {
  it('hides internal notes from partners only', () => {
    expect(isVisibleTo(partner, { is_internal: true })).toBe(false);
    expect(isVisibleTo(partner, { is_internal: false })).toBe(true);
    expect(isVisibleTo(provider, { is_internal: true })).toBe(true);
  });

  it('lets the receiving party confirm, not the sending one', () => {
    expect(mayConfirm(partner, { sender_type: 'provider' })).toBe(true);
    expect(mayConfirm(provider, { sender_type: 'partner' })).toBe(true);
    expect(mayConfirm(partner, { sender_type: 'partner' })).toBe(false);
    expect(mayConfirm(provider, { sender_type: 'provider' })).toBe(false);
  });
});

describe('parseDeclaredAt', () => {
  const now = new Date('2026-05-01T10:00:00Z');

  it('is now when empty', () => {
    expect(parseDeclaredAt(undefined, now)).toBe(now);
    expect(parseDeclaredAt(null, now)).toBe(now);
    expect(parseDeclaredAt('  ', now)).toBe(now);
  });

  it('reads dates and date-times, without a zone as UTC', () => {
    expect(parseDeclaredAt('2026-04-30', now)?.toISOString()).toBe('2026-04-30T00:00:00.000Z');
    expect(parseDeclaredAt('2026-04-30 12:30', now)?.toISOString()).toBe('2026-04-30T12:30:00.000Z');
    expect(parseDeclaredAt('2026-04-30T12:30:15.250+0200', now)?.toISOString()).toBe('2026-04-30T10:30:15.250Z');
    expect(parseDeclaredAt('2026-04-30T12:30:15Z', now)?.toISOString()).toBe('2026-04-30T12:30:15.000Z');
  });

  it('refuses what is not a date', () => {
    for (const value of ['yesterday', '2026-02-30', '2026-13-01', '2026-04-30T25:00', '1714470000'])
      expect(parseDeclaredAt(value, now)).toBeNull();
  });
});
