import {
  detailsFromValidator,
  FieldsValidationError,
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
