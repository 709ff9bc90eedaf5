import {
  detailsFromValidator,
  FieldsValidationError,
  NAMED_FAILURES_MAX,
  NotEnoughDataError,
  CannotProcessCaseError,
  renderError,
  UnavailableError,
} from '../src/errors';

describe('renderError', () => {
  it('renders field validation as the spec envelope keyed by field path', () => {
    const rendered = renderError(new FieldsValidationError({ 'customer.firstName': ['Field is required'] }));
    expect(rendered.status).toBe(400);
    expect(rendered.body).toEqual({
      error: { message: 'Fields validation failed', details: { 'customer.firstName': ['Field is required'] } },
    });
  });

  it("maps Moleculer's parameter errors onto the spec's messages", () => {
    const details = detailsFromValidator([
      { type: 'required', field: 'guid' },
      { type: 'enumValue', field: 'type', expected: ['a'] },
      { type: 'equalValue', field: 'acceptConditions', expected: true },
      { type: 'number', field: 'id' },
      { type: 'stringMax', field: 'userName', expected: 512 },
    ]);
    expect(details).toEqual({
      guid: ['Field is required'],
      type: ['Value is not present in possible options'],
      acceptConditions: ['Field must be equal to true'],
      id: ['Wrong format'],
      userName: ['Must be at most 512 characters'],
    });
    expect(renderError({ type: 'VALIDATION_ERROR', code: 422, data: [{ type: 'required', field: 'id' }] }).status).toBe(
      400,
    );
  });

  it('renders the routing envelopes exactly', () => {
    expect(renderError(new NotEnoughDataError(['manufacturer'])).body).toEqual({
      error: 'Not enough data',
      data: { paramsNeeded: ['manufacturer'] },
    });
    const noCompetence = renderError(new CannotProcessCaseError());
    expect(noCompetence.status).toBe(404);
    expect(noCompetence.body).toEqual({ error: { message: "Can't process this case" }, data: null });
  });

  it('never shows internals of a server error', () => {
    const rendered = renderError({ message: 'relation "x" does not exist at /srv/app.js:10', code: 500 }, 'req-1');
    expect(rendered.status).toBe(500);
    expect(JSON.stringify(rendered.body)).not.toContain('relation');
    expect(rendered.body).toEqual({ error: { message: 'Internal error', requestId: 'req-1' } });
  });

  it('answers 503 with Retry-After for passing faults', () => {
    const rendered = renderError(new UnavailableError());
    expect(rendered.status).toBe(503);
    expect(rendered.headers['Retry-After']).toBe('1');
  });

  it('answers 504 without Retry-After when a call was sent and no answer came, naming the outcome unknown', () => {
    for (const type of ['REQUEST_TIMEOUT', 'REQUEST_REJECTED']) {
      const rendered = renderError({ type, code: type === 'REQUEST_TIMEOUT' ? 504 : 503, message: 'x' }, 'req-3');
      expect(rendered.status).toBe(504);
      expect(rendered.headers).toEqual({});
      expect(rendered.body).toEqual({
        error: { message: expect.stringContaining('the same Idempotency-Key'), requestId: 'req-3' },
      });
    }
  });

  it('names the first fields of a large validation error and counts them all', () => {
    const details = Object.fromEntries(
      Array.from({ length: 500 }, (_, index) => [`items[${index}]`, ['Wrong format']]),
    );
    const error = new FieldsValidationError(details);
    expect(error.data).toMatchObject({ failureCount: 500 });
    const rendered = renderError(error);
    const body = rendered.body as { error: { details: Record<string, string[]>; failureCount: number } };
    expect(Object.keys(body.error.details)).toEqual(Object.keys(details).slice(0, NAMED_FAILURES_MAX));
    expect(body.error.failureCount).toBe(500);
    const fromValidator = renderError({
      type: 'VALIDATION_ERROR',
      data: Array.from({ length: 30 }, (_, index) => ({ type: 'required', field: `f${index}` })),
    }).body as { error: { details: object; failureCount: number } };
    expect(Object.keys(fromValidator.error.details)).toHaveLength(NAMED_FAILURES_MAX);
    expect(fromValidator.error.failureCount).toBe(30);
    // A few fields are named whole, with no count.
    expect(renderError(new FieldsValidationError({ a: ['Wrong format'] })).body).toEqual({
      error: { message: 'Fields validation failed', details: { a: ['Wrong format'] } },
    });
    const longKey = 'k'.repeat(5000);
    const cut = renderError(new FieldsValidationError({ [longKey]: ['Wrong format'] })).body as {
      error: { details: object };
    };
    expect(Object.keys(cut.error.details)[0].length).toBeLessThanOrEqual(200);
  });

  it('answers 503 with Retry-After when the action runs nowhere, and 404 for what does not exist', () => {
    for (const type of ['SERVICE_NOT_FOUND', 'SERVICE_NOT_AVAILABLE']) {
      const rendered = renderError({ type, code: 404, message: "Service 'booking.create' is not available." }, 'req-2');
      expect(rendered.status).toBe(503);
      expect(rendered.headers['Retry-After']).toBe('1');
      expect(rendered.body).toEqual({ error: { message: 'Service temporarily unavailable', requestId: 'req-2' } });
    }
    expect(renderError({ type: 'NOT_FOUND', code: 404, message: 'Not found' })).toEqual({
      status: 404,
      headers: {},
      body: { error: { message: 'Not found' } },
    });
  });
});
