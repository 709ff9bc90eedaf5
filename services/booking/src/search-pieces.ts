/**
 * The pieces of a commonSearch text through which a trigram index finds its candidates, chosen
 * from the share of rows holding each trigram. Every trigram of the text narrows the index's
 * answer, but one that nearly every row holds (a key of the rows' JSON, a common name) costs a
 * read of a posting list as long as the table and narrows it little: the rare piece `en4242` of
 * `hansen4242` finds the same candidates from a small share of the index pages the whole text
 * reads. The whole text is then checked on the candidates, so what is found is what
 * the whole text finds: whatever contains the text contains each of its pieces.
 *
 * The trigrams are pg_trgm's for a `%text%` pattern: each word's letters and digits in lower case,
 * with two spaces before a word that follows a non-word character of the text and one after a word
 * that precedes one (`REF-777777` gives `ref`, `ef `, `  7`, ` 77` and `777`). Only ASCII counts
 * here: the lower case of an ASCII character is the same alone as inside the text in every
 * collation, so a piece lower-cases as it does within the text.
 */

interface Word {
  start: number;
  end: number;
  /** Preceded, or followed, by a non-word character of the text: pg_trgm pads that side. */
  paddedBefore: boolean;
  paddedAfter: boolean;
}

const WORD = /[A-Za-z0-9]+/g;
const NON_WORD_ASCII = /^[ -/:-@[-`{-~]$/;

function wordsOf(text: string): Word[] {
  return [...text.matchAll(WORD)].map((match) => {
    const start = match.index ?? 0;
    const end = start + match[0].length;
    return {
      start,
      end,
      paddedBefore: start > 0 && NON_WORD_ASCII.test(text[start - 1]),
      paddedAfter: end < text.length && NON_WORD_ASCII.test(text[end]),
    };
  });
}

/** A word's padded form in lower case, and for each of its characters the text's index it stands for. */
function paddedForm(text: string, word: Word): { padded: string; at: number[] } {
  const letters = text.slice(word.start, word.end).toLowerCase();
  const at = Array.from({ length: letters.length }, (_, offset) => word.start + offset);
  return {
    padded: (word.paddedBefore ? '  ' : '') + letters + (word.paddedAfter ? ' ' : ''),
    at: [
      ...(word.paddedBefore ? [word.start - 1, word.start - 1] : []),
      ...at,
      ...(word.paddedAfter ? [word.end] : []),
    ],
  };
}

/** The trigrams pg_trgm takes from the text as a `%text%` pattern, as far as ASCII goes. */
export function textTrigrams(text: string): string[] {
  const trigrams = wordsOf(text).flatMap((word) => {
    const { padded } = paddedForm(text, word);
    return Array.from({ length: Math.max(0, padded.length - 2) }, (_, at) => padded.slice(at, at + 3));
  });
  return [...new Set(trigrams)];
}

/**
 * The pieces of the text whose trigrams are each held by at most `commonShare` of the rows (a
 * trigram `shareOf` does not list is rarer than any it does): the runs of such trigrams, each with
 * the non-word character its padding stands for. None when no trigram is common or none is rare:
 * then the whole text is the better search.
 */
export function rarePieces(text: string, shareOf: ReadonlyMap<string, number>, commonShare: number): string[] {
  const pieces: string[] = [];
  let common = 0;
  for (const word of wordsOf(text)) {
    const { padded, at } = paddedForm(text, word);
    const piece = (first: number, last: number) => text.slice(at[first], at[last + 2] + 1);
    const heldByFew = (index: number) => (shareOf.get(padded.slice(index, index + 3)) ?? 0) <= commonShare;
    // The first trigram of the run of rare ones being read, if any.
    let runStart = -1;
    for (let index = 0; index + 3 <= padded.length; index++) {
      // A piece holding the word's second padded trigram holds the non-word character before it,
      // and so its first padded trigram too.
      const rare = heldByFew(index) && !(index === 1 && word.paddedBefore && !heldByFew(0));
      if (rare && runStart < 0) runStart = index;
      if (!rare) {
        common++;
        if (runStart >= 0) pieces.push(piece(runStart, index - 1));
        runStart = -1;
      }
    }
    if (runStart >= 0) pieces.push(piece(runStart, padded.length - 3));
  }
  return common > 0 ? [...new Set(pieces)] : [];
}
