/**
 * A broker middleware that records every action call a service makes to another service, so a
 * test can count what one request costs in hops: how many calls it causes in all, and how many
 * of them happen one after another (each waiting for the previous, or made from inside it),
 * which is what adds a network round trip each in distributed mode.
 */
import type { Context, Middleware } from 'moleculer';

export interface RecordedCall {
  /** The context's id, and the id of the context it was made from. */
  id: string;
  parentId: string | null;
  requestId: string | null;
  /** The calling service and the action called. */
  from: string | null;
  action: string;
  /** Positions on one counter shared by every start and end, so the order needs no clock. */
  startedAt: number;
  endedAt: number;
}

type Handler = (ctx: Context) => Promise<unknown>;
type ActionDefinition = { name: string; service?: { fullName: string } };

export interface ServiceCallRecorder {
  middleware: Middleware;
  /** The calls between services made from inside the call of `action` in a request (by its request id). */
  callsOf(requestId: string, action: string): RequestCalls;
  clear(): void;
}

export interface RequestCalls {
  calls: RecordedCall[];
  /** The longest run of them made one after another (see `callsInSequence`). */
  inSequence: number;
}

export function serviceCallRecorder(): ServiceCallRecorder {
  let clock = 0;
  let calls: RecordedCall[] = [];
  // Every context's parent, recorded or not, so a call made from inside a service's own helper
  // action is still known to be inside the call that reached that service.
  let parents = new Map<string, string | null>();
  const middleware = {
    name: 'ServiceCallRecorder',
    localAction(next: Handler, action: ActionDefinition): Handler {
      return async (ctx) => {
        parents.set(ctx.id, ctx.parentID ?? null);
        const target = action.service?.fullName ?? action.name.split('.')[0];
        // Calls inside one service (a cached helper action) are not hops.
        if (!ctx.caller || ctx.caller === target) return next(ctx);
        const call: RecordedCall = {
          id: ctx.id,
          parentId: ctx.parentID ?? null,
          requestId: ctx.requestID ?? null,
          from: ctx.caller,
          action: action.name,
          startedAt: ++clock,
          endedAt: Infinity,
        };
        calls.push(call);
        try {
          return await next(ctx);
        } finally {
          call.endedAt = ++clock;
        }
      };
    },
  } as unknown as Middleware;

  return {
    middleware,
    callsOf(requestId, action) {
      const ofRequest = calls.filter((call) => call.requestId === requestId);
      const madeInside = (inner: RecordedCall, outer: RecordedCall) => {
        for (let parent = inner.parentId; parent; parent = parents.get(parent) ?? null)
          if (parent === outer.id) return true;
        return false;
      };
      const entry = ofRequest.find((call) => call.action === action);
      if (!entry) throw new Error(`No call of ${action} in request ${requestId}`);
      const caused = ofRequest.filter((call) => madeInside(call, entry));
      return { calls: caused, inSequence: callsInSequence(caused, madeInside) };
    },
    clear() {
      calls = [];
      parents = new Map();
    },
  };
}

/**
 * The longest run of calls one after another: each either starts after the previous one ended
 * or is made from inside it. Calls made side by side (each started before the other ended,
 * neither inside the other) are not one after another.
 */
export function callsInSequence(
  calls: RecordedCall[],
  madeInside: (inner: RecordedCall, outer: RecordedCall) => boolean,
): number {
  const sorted = [...calls].sort((a, b) => a.startedAt - b.startedAt);
  const longest = sorted.map(() => 1);
  sorted.forEach((call, i) => {
    for (let j = 0; j < i; j += 1) {
      const before = sorted[j];
      if (before.endedAt < call.startedAt || madeInside(call, before))
        longest[i] = Math.max(longest[i], longest[j] + 1);
    }
  });
  return Math.max(0, ...longest);
}
