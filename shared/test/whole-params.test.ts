/**
 * Param and response schemas reach other nodes whole: Moleculer drops every repeat of an object
 * when it publishes a node's actions, so a rule shared by two params, or a shape shared by two
 * responses, must not stay shared.
 */
import { ServiceBroker } from 'moleculer';
import { brokerOptions, loadConfig } from '../src';

const sharedRule = { type: 'number', integer: true, convert: false };
const sharedShape = { type: 'object', properties: { id: { type: 'integer' } } } as const;

interface PublishedAction {
  params: Record<string, unknown>;
  response: { properties: Record<string, unknown> };
}

function nodeBroker(nodeID: string, namespace: string, middlewares: boolean): ServiceBroker {
  const options = brokerOptions(loadConfig({}));
  return new ServiceBroker({
    ...options,
    nodeID,
    namespace,
    transporter: 'Fake',
    logger: false,
    metrics: false,
    tracing: false,
    middlewares: middlewares ? options.middlewares : [],
  });
}

async function remoteAction(middlewares: boolean): Promise<PublishedAction> {
  const namespace = `whole-params-${middlewares}-${Date.now()}`;
  const server = nodeBroker('server', namespace, middlewares);
  const client = nodeBroker('client', namespace, middlewares);
  server.createService({
    name: 'lookups',
    actions: {
      find: {
        params: { productType: sharedRule, serviceLocation: sharedRule },
        response: { type: 'object', properties: { first: sharedShape, second: sharedShape } },
        handler: () => [],
      },
    },
  });
  await Promise.all([server.start(), client.start()]);
  try {
    await client.waitForServices('lookups', 5000);
    const actions = (await client.call('$node.actions', { skipInternal: true, withEndpoints: false })) as Array<{
      name: string;
      action: PublishedAction;
    }>;
    return actions.find((entry) => entry.name === 'lookups.find')!.action;
  } finally {
    await Promise.all([client.stop(), server.stop()]);
  }
}

it('publishes every param and response property of an action whose schemas share objects', async () => {
  const action = await remoteAction(true);
  expect(Object.keys(action.params).sort()).toEqual(['productType', 'serviceLocation']);
  expect(action.response.properties).toEqual({ first: sharedShape, second: sharedShape });
});

it('loses the repeats without the hub middleware, which is why it exists', async () => {
  const action = await remoteAction(false);
  expect(Object.keys(action.params)).toEqual(['productType']);
  expect(Object.keys(action.response.properties)).toEqual(['first']);
});
