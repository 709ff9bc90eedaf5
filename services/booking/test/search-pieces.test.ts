import { rarePieces, textTrigrams } from '../src/search-pieces';

describe('the trigrams of a commonSearch text', () => {
  it("are pg_trgm's for the text as a %text% pattern: padded where a word meets a non-word character", () => {
    expect(textTrigrams('REF-777777')).toEqual(['ref', 'ef ', '  7', ' 77', '777']);
    expect(textTrigrams('Hansen4242')).toEqual(['han', 'ans', 'nse', 'sen', 'en4', 'n42', '424', '242']);
    expect(textTrigrams('ab')).toEqual([]);
  });
});

describe('the rare pieces of a commonSearch text', () => {
  // Shares as in the contacts and cases the search-cases benchmark grows.
  const shares = new Map([
    ['han', 1],
    ['ans', 1],
    ['nse', 1],
    ['sen', 1],
    ['en4', 0.22],
    ['n42', 0.022],
    ['424', 0.005],
    ['  h', 1],
    [' ha', 1],
    ['en ', 1],
    ['ref', 1],
    ['ef ', 1],
    ['  7', 0.1],
  ]);

  it('leaves out the trigrams held by more than the share, keeping the runs of the others', () => {
    expect(rarePieces('Hansen4242', shares, 0.5)).toEqual(['en4242']);
    expect(rarePieces('Hansen4242', shares, 0.1)).toEqual(['n4242']);
    expect(rarePieces('4242 Hansen 4242x', shares, 0.1)).toEqual(['4242 ', ' 4242x']);
  });

  it('keeps the non-word character a rare padded trigram stands for', () => {
    expect(rarePieces('REF-777777', shares, 0.5)).toEqual(['-777777']);
    expect(rarePieces('REF-777777', shares, 0.05)).toEqual(['777777']);
  });

  it('reads a trigram the statistics do not list as rare, in any case of its letters', () => {
    expect(rarePieces('HANSENberg', shares, 0.5)).toEqual(['ENberg']);
    expect(rarePieces('xhans', shares, 0.5)).toEqual(['xha']);
  });

  it('takes words of ASCII letters and digits, padded only beside ASCII', () => {
    expect(rarePieces('Hansen-Øyvind_4242', shares, 0.5)).toEqual(['yvind_', '_4242']);
  });

  it('sends the whole text when no trigram is common, or none is rare', () => {
    expect(rarePieces('Oslo 4242', shares, 0.5)).toEqual([]);
    expect(rarePieces('hansen', shares, 0.5)).toEqual([]);
    expect(rarePieces('ab', shares, 0.5)).toEqual([]);
  });
});
