/**
 * Booked cases for cost proposal tests, with the tokens of their parties and of outsiders.
 */
import { CASE_PARTIES_ACTION, type CasePartiesEntry, type ServiceName } from '../../../shared/src';
import { bookCase, BOOKING_SERVICES } from '../../../test/support/cases';
import { DEMO_TOKENS, type TestHub } from '../../../test/support/hub';

export const CASE_SERVICES: ServiceName[] = [...BOOKING_SERVICES, 'cost-proposals'];

const PARTNER_TOKENS: Record<number, string> = { 1: DEMO_TOKENS.elkjop, 2: DEMO_TOKENS.power, 3: DEMO_TOKENS.trygg };
const PROVIDER_TOKENS: Record<number, string> = { 10: DEMO_TOKENS.nrc, 20: DEMO_TOKENS.svea, 30: DEMO_TOKENS.fixit };

export interface OpenCase {
  guid: string;
  partnerId: number;
  partnerToken: string;
  providerId: number;
  providerToken: string;
  otherPartnerToken: string;
  otherProviderToken: string;
}

/** Books a demo case for the partner and names who may and who may not see it. */
export async function openCase(hub: TestHub, partnerToken: string = DEMO_TOKENS.elkjop): Promise<OpenCase> {
  const guid = await bookCase(hub, partnerToken);
  const [parties] = (await hub.broker.call(CASE_PARTIES_ACTION, { guids: [guid] })) as CasePartiesEntry[];
  const providerId = parties.serviceProviderId!;
  return {
    guid,
    partnerId: parties.partnerId,
    partnerToken,
    providerId,
    providerToken: PROVIDER_TOKENS[providerId],
    otherPartnerToken: Object.values(PARTNER_TOKENS).find((token) => token !== partnerToken)!,
    otherProviderToken: Object.values(PROVIDER_TOKENS).find((token) => token !== PROVIDER_TOKENS[providerId])!,
  };
}
