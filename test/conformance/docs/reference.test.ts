/** The reader of the documentation's examples: every example of the copy must be readable, and read as meant. */
import fs from 'node:fs';
import path from 'node:path';
import { ANY } from './documented';
import { codeBlocks, documentedInputs, DOCUMENTATION_COMMIT, parseExample, shapeOf } from './reference';

describe('the copy of the documentation', () => {
  it('names the commit it was taken at, as docs/compatibility.md does', () => {
    const readme = fs.readFileSync(path.join(__dirname, 'reference', 'README.md'), 'utf8');
    const compatibility = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'compatibility.md'), 'utf8');
    expect(readme).toContain(`**${DOCUMENTATION_COMMIT}**`);
    expect(compatibility).toContain(DOCUMENTATION_COMMIT);
    const changes = fs.readFileSync(path.join(__dirname, 'reference', 'CHANGES.txt'), 'utf8');
    expect(changes.split('\n')[0]).toMatch(new RegExp(`^${DOCUMENTATION_COMMIT} `));
  });

  it('reads every example of every current page that is a JSON value', () => {
    const dir = path.join(__dirname, 'reference', 'current');
    const unreadable: string[] = [];
    let read = 0;
    for (const file of fs.readdirSync(dir)) {
      codeBlocks(fs.readFileSync(path.join(dir, file), 'utf8')).forEach((block, index) => {
        if (!/^\s*[[{]/.test(block)) return;
        try {
          parseExample(block);
          read += 1;
        } catch (error) {
          unreadable.push(`${file} #${index}: ${(error as Error).message}`);
        }
      });
    }
    expect(unreadable).toEqual([]);
    expect(read).toBeGreaterThan(40);
  });
});

describe('parseExample', () => {
  it('reads JSON as the pages write it', () => {
    expect(
      parseExample(`{
        "id": 1, // a comment
        "name": dea",
        "organizationNumber": 123456-1234",
        "type": sparePart,
        "list": ['X', 'Y',],
        "approverName": "John Smith" // no comma before the next key
        "details": [ { "line": 1 }, ... ],
        "data": { /* Cost Proposal v1 */ },
        "cases": [{ Case 1 }],
        "unquoted": { name: "Something" }
      }`),
    ).toEqual({
      id: 1,
      name: 'dea',
      organizationNumber: '123456-1234',
      type: 'sparePart',
      list: ['X', 'Y'],
      approverName: 'John Smith',
      details: [{ line: 1 }],
      data: {},
      cases: [ANY],
      unquoted: { name: 'Something' },
    });
  });

  it('fails on what it cannot read, saying where', () => {
    expect(() => parseExample('{ "id": 1 ')).toThrow(/ends early/);
    expect(() => parseExample('{ "id" 1 }')).toThrow(/colon missing/);
  });
});

describe('shapeOf', () => {
  it('takes a documented null as "present, of any type"', () => {
    expect(shapeOf({ id: 1, externalData: null, list: [{ a: null }] })).toEqual({
      id: 1,
      externalData: ANY,
      list: [{ a: ANY }],
    });
  });
});

describe('documentedInputs', () => {
  it("lists an endpoint's documented parameters, marking the mandatory ones", () => {
    expect(documentedInputs('Reference data', 'GET /api/v3/accessory')).toEqual([
      { name: 'productType', mandatory: true },
    ]);
  });
});
