import { rarePieces } from '../src/case-filters';

describe('the rare pieces of a commonSearch text', () => {
  // Shares as in a million contacts of the search-cases benchmark (bench/RESULTS.md).
  const shares = new Map([
    ['han', 1],
    ['ans', 1],
    ['nse', 1],
    ['sen', 1],
    ['en4', 0.22],
    ['n42', 0.022],
    ['424', 0.005],
  ]);

  it('leaves out the trigrams held by more than the share, keeping the runs of the others', () => {
    expect(rarePieces('Hansen4242', shares, 0.5)).toEqual(['en4242']);
    expect(rarePieces('Hansen4242', shares, 0.1)).toEqual(['n4242']);
    expect(rarePieces('4242 Hansen 4242x', shares, 0.1)).toEqual(['4242', '4242x']);
  });

  it('reads a trigram the statistics do not list as rare, in any case of its letters', () => {
    expect(rarePieces('HANSENberg', shares, 0.5)).toEqual(['ENberg']);
    expect(rarePieces('xhans', shares, 0.5)).toEqual(['xha']);
  });

  it('takes pieces of ASCII letters and digits only', () => {
    expect(rarePieces('Hansen-Øyvind_4242', shares, 0.5)).toEqual(['yvind', '4242']);
  });

  it('sends the whole text when no trigram is common, or none is rare', () => {
    expect(rarePieces('Oslo 4242', shares, 0.5)).toEqual([]);
    expect(rarePieces('hansen', shares, 0.5)).toEqual([]);
    expect(rarePieces('ab', shares, 0.5)).toEqual([]);
  });
});
