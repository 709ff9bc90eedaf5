/**
 * The registry's pure rules: how a search string becomes patterns, and how a batch of upserts
 * is matched to existing models and checked for the two uniqueness rules before anything is
 * written.
 */
import { escapeLike, FIELD_MESSAGES, type FieldDetails } from '@hub/shared';

/** The most models a search answers with; the default is the spec's 10. */
export const SEARCH_LIMIT_DEFAULT = 10;
export const SEARCH_LIMIT_MAX = 100;
/** The most models one POST may carry, so one transaction stays short. */
export const UPSERT_BATCH_MAX = 1000;

export const MESSAGES = {
  nameTaken: 'A model with this name already exists for this manufacturer',
  mpnTaken: 'A model with this mpn already exists for this manufacturer',
  nameTwice: 'Another entry of this batch has the same name for this manufacturer',
  mpnTwice: 'Another entry of this batch has the same mpn for this manufacturer',
  modelTwice: 'Another entry of this batch changes the same model',
  unknown: FIELD_MESSAGES.notAnOption,
} as const;

/** An id or a name: query strings carry ids as digits. */
export function referenceKey(value: number | string): number | string {
  if (typeof value === 'number') return value;
  const trimmed = value.trim();
  return /^\d{1,9}$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/** The text the trigram index covers: every searchable name of a model, lower-cased. */
export function searchTextOf(name: string, mpn: string, aliases: string[]): string {
  return [name, mpn, ...aliases].join(' ').toLowerCase();
}

/**
 * How many models holding every word a search ranks by similarity, when exact and prefix matches
 * do not fill the limit. Each costs a row read and a comparison of its trigrams, so for a broad
 * word the candidates, not the index walk, would otherwise be most of the statement's time.
 */
export const SIMILAR_CANDIDATES_MAX = 300;
/**
 * The most models the narrowest word of a query of several words may be held by for the search to
 * read them from its suffixes and check each row, rather than take the trigram index's models
 * holding every word (a bitmap of every holder of each word, tens of milliseconds for a broad one).
 */
export const HOLDERS_READ_MAX = 1000;
/** The shortest word that makes a search look inside names: the trigram index needs three characters. */
export const CONTAINS_MIN_LENGTH = 3;
/**
 * The shortest suffix models.search_suffixes keeps: a two-character word ("s2", "12") has no
 * trigram, so its suffixes are what can narrow a search that holds it.
 */
export const SUFFIX_MIN_LENGTH = 2;

/** What a non-strict search looks for. */
export interface SearchTerms {
  /** The query lower-cased, words one space apart: an exact name, mpn or alias equals it. */
  phrase: string;
  /** LIKE pattern of a name or mpn starting with the phrase. */
  prefix: string;
  /**
   * LIKE patterns, one per distinct word, that must all occur in name, mpn or aliases, so
   * "gal s2" finds "Galaxy S24"; empty when no word is long enough for the trigram index, as
   * such a search would read the whole table.
   */
  contains: string[];
  /**
   * LIKE patterns of a word's suffix (models.search_suffixes) starting with a distinct word of at
   * least SUFFIX_MIN_LENGTH characters, the shortest suffix that table keeps; empty when
   * `contains` is.
   */
  suffixes: string[];
  /** Those of `suffixes` whose word is shorter than CONTAINS_MIN_LENGTH: the trigram index cannot narrow by it. */
  shortSuffixes: string[];
}

export function searchTerms(query: string): SearchTerms | null {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return null;
  const phrase = words.join(' ');
  const distinct = [...new Set(words)];
  const looksInside = distinct.some((word) => word.length >= CONTAINS_MIN_LENGTH);
  // Counted in characters, as the database cuts suffixes, not in UTF-16 units.
  const suffixWords = looksInside ? distinct.filter((word) => [...word].length >= SUFFIX_MIN_LENGTH) : [];
  return {
    phrase,
    prefix: `${escapeLike(phrase)}%`,
    contains: looksInside ? distinct.map((word) => `%${escapeLike(word)}%`) : [],
    suffixes: suffixWords.map((word) => `${escapeLike(word)}%`),
    shortSuffixes: suffixWords
      .filter((word) => [...word].length < CONTAINS_MIN_LENGTH)
      .map((word) => `${escapeLike(word)}%`),
  };
}

/** One entry of a POST after its manufacturer and product type were resolved to ids. */
export interface ModelWrite {
  id?: number;
  name: string;
  mpn: string;
  manufacturerId: number;
  productTypeId: number;
  aliases?: string[];
  tags?: unknown[];
  countryOfOrigin?: string | null;
  taricSE?: string | null;
  taricNO?: string | null;
  value?: string | null;
  weight?: string | null;
}

/** A stored model as the store reads it. */
export interface ModelRow {
  id: number;
  name: string;
  mpn: string;
  manufacturerId: number;
  productTypeId: number;
  aliases: string[];
  tags: unknown[];
  countryOfOrigin: string | null;
  taricSE: string | null;
  taricNO: string | null;
  value: string | null;
  weight: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type ModelValues = Omit<ModelRow, 'id' | 'createdAt' | 'updatedAt'>;

export type PlannedWrite =
  | { kind: 'create'; index: number; values: ModelValues }
  | { kind: 'update'; index: number; id: number; values: ModelValues }
  | { kind: 'unchanged'; index: number; id: number };

const keyOf = (text: string, manufacturerId: number) => `${manufacturerId}\u0000${text.toLowerCase()}`;

function mergeValues(entry: ModelWrite, current: ModelRow | undefined): ModelValues {
  // A field the entry leaves out keeps its stored value; null clears it.
  const pick = <K extends keyof ModelValues>(key: K, fallback: ModelValues[K]): ModelValues[K] => {
    const sent = entry[key as keyof ModelWrite] as ModelValues[K] | undefined;
    if (sent !== undefined) return sent;
    return current ? current[key] : fallback;
  };
  return {
    name: entry.name,
    mpn: entry.mpn,
    manufacturerId: entry.manufacturerId,
    productTypeId: entry.productTypeId,
    // A list cleared with null is an empty list.
    aliases: pick('aliases', []) ?? [],
    tags: pick('tags', []) ?? [],
    countryOfOrigin: pick('countryOfOrigin', null),
    taricSE: pick('taricSE', null),
    taricNO: pick('taricNO', null),
    value: pick('value', null),
    weight: pick('weight', null),
  };
}

function sameValues(values: ModelValues, row: ModelRow): boolean {
  return (Object.keys(values) as Array<keyof ModelValues>).every(
    (key) => JSON.stringify(values[key]) === JSON.stringify(row[key]),
  );
}

/**
 * Decides what each entry does and finds every rule it breaks. `existing` must hold every stored
 * model an entry names by id, or whose (name, manufacturer) or (mpn, manufacturer) equals an
 * entry's. Field paths are `items[i].field`; the gateway shows them as `[i].field`.
 */
export function planBatch(
  entries: ModelWrite[],
  existing: ModelRow[],
): { writes: PlannedWrite[]; details: FieldDetails } {
  const details: FieldDetails = {};
  const fail = (index: number, field: string, message: string) => {
    const messages = (details[`items[${index}].${field}`] ??= []);
    if (!messages.includes(message)) messages.push(message);
  };
  const byId = new Map(existing.map((row) => [row.id, row]));
  const byName = new Map(existing.map((row) => [keyOf(row.name, row.manufacturerId), row]));
  const byMpn = new Map(existing.map((row) => [keyOf(row.mpn, row.manufacturerId), row]));

  const targets = new Map<number, number>();
  // An entry whose model is unknown or already taken has nothing to check uniqueness against.
  const unplaced = new Set<number>();
  const writes: PlannedWrite[] = [];
  entries.forEach((entry, index) => {
    const target = entry.id !== undefined ? byId.get(entry.id) : byName.get(keyOf(entry.name, entry.manufacturerId));
    if (entry.id !== undefined && !target) {
      fail(index, 'id', MESSAGES.unknown);
      unplaced.add(index);
      return;
    }
    if (target) {
      if (targets.has(target.id)) {
        fail(index, entry.id !== undefined ? 'id' : 'name', MESSAGES.modelTwice);
        unplaced.add(index);
        return;
      }
      targets.set(target.id, index);
    }
    const values = mergeValues(entry, target);
    if (!target) writes.push({ kind: 'create', index, values });
    else if (sameValues(values, target)) writes.push({ kind: 'unchanged', index, id: target.id });
    else writes.push({ kind: 'update', index, id: target.id, values });
  });

  // A name or mpn a stored model holds stays taken for this batch even when another entry renames
  // that model: a unique index checks each row as it is written, so freeing and reusing a key in
  // one statement would succeed or fail by row order. The freed key can be taken by a later batch.
  const finalNames = new Map<string, number>();
  const finalMpns = new Map<string, number>();
  entries.forEach((entry, index) => {
    if (unplaced.has(index)) return;
    const check = (
      field: 'name' | 'mpn',
      seen: Map<string, number>,
      stored: Map<string, ModelRow>,
      taken: string,
      twice: string,
    ) => {
      const key = keyOf(entry[field], entry.manufacturerId);
      if (seen.has(key)) fail(index, field, twice);
      else seen.set(key, index);
      const holder = stored.get(key);
      if (holder && targets.get(holder.id) !== index) fail(index, field, taken);
    };
    check('name', finalNames, byName, MESSAGES.nameTaken, MESSAGES.nameTwice);
    check('mpn', finalMpns, byMpn, MESSAGES.mpnTaken, MESSAGES.mpnTwice);
  });
  return { writes, details };
}
