/** What the sandbox's API answers, for the API reference (the actions' `response`). */
import { GUID, ID, type JsonSchema, record, TEXT_OR_NULL, TIMESTAMP } from '@hub/shared';
import { STEPS } from './life';

const SIMULATION: JsonSchema = {
  title: 'Simulation',
  ...record({
    guid: { ...GUID, description: "The case's guid" },
    providerId: ID,
    state: {
      enum: ['running', 'finished', 'stopped'],
      description: '`stopped`: the hub refused a step (the case was cancelled, for one); `stoppedReason` says why',
    },
    step: {
      enum: STEPS,
      description:
        'Running: the step taken next (`answer`: waiting for the partner to approve or reject the cost proposal); finished: the last; stopped: the one refused',
    },
    outcome: { enum: ['approved', 'rejected', null], description: "The partner's answer to the cost proposal" },
    dueAt: { type: ['string', 'null'], format: 'date-time', description: 'When the next step is taken (running only)' },
    stoppedReason: TEXT_OR_NULL,
    startedAt: TIMESTAMP,
    updatedAt: TIMESTAMP,
  }),
};

export const ONE_SIMULATION: JsonSchema = {
  ...record({ data: SIMULATION }),
  examples: [
    {
      data: {
        guid: '3b0c1a4e-5d7f-4f7e-9a51-0c2d6e8f1a23',
        providerId: 40,
        state: 'running',
        step: 'answer',
        outcome: null,
        dueAt: '2026-11-27T10:02:10.000Z',
        stoppedReason: null,
        startedAt: '2026-11-27T10:00:00.000Z',
        updatedAt: '2026-11-27T10:02:08.000Z',
      },
    },
  ],
};
