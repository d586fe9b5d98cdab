import type { TargetRecord } from './state.js';
import { parseTargetRecord } from './state-validation.js';

/**
 * The build records of every target, each kept as the JSON text state.json holds until something
 * asks for it. A one-source edit of a 10,000-source workspace needs the records of that source's chain
 * and of the aggregates; parsing all 30,000 (about 30 MB of JSON) made the edit's overhead grow with
 * the corpus. The whole file passed its checksum at load, and each record is validated as it is parsed.
 *
 * A Map to its callers: get/has/set/delete touch one record; iterating parses everything (the slow
 * paths: a state that no proof vouches for, a full garbage collection).
 */
export class TargetRecords extends Map<string, TargetRecord> {
  /** Records not parsed yet: target -> its record's JSON text. */
  private unparsed = new Map<string, string>();

  /** Adds a record as its JSON text, parsed on first use. */
  setText(name: string, text: string): void {
    super.delete(name);
    this.unparsed.set(name, text);
  }

  /** The record's JSON text while it has not been parsed (so it is the text loaded), else undefined. */
  textOf(name: string): string | undefined {
    return this.unparsed.get(name);
  }

  /** Every target name, without parsing a record. */
  names(): string[] {
    return [...super.keys(), ...this.unparsed.keys()];
  }

  /**
   * The records of the targets `within` accepts that may name one of `tokens` (file paths, hashes,
   * ids): a record still text when the text contains one, a parsed record when `names` says it does.
   * Finds the few records that name a file without parsing the others.
   */
  mentioning(
    within: (name: string) => boolean,
    tokens: readonly string[],
    names: (record: TargetRecord) => boolean,
  ): Map<string, TargetRecord> {
    const found = new Map<string, TargetRecord>();
    if (tokens.length === 0) return found;
    for (const [name, record] of super.entries()) if (within(name) && names(record)) found.set(name, record);
    // Named first, parsed after: no copy of the 30,000 entries to iterate over while get() moves them.
    const named: string[] = [];
    for (const [name, text] of this.unparsed) if (within(name) && tokens.some((token) => text.includes(token))) named.push(name);
    for (const name of named) {
      const record = this.get(name);
      if (record !== undefined) found.set(name, record);
    }
    return found;
  }

  override get(name: string): TargetRecord | undefined {
    const record = super.get(name);
    if (record !== undefined) return record;
    const text = this.unparsed.get(name);
    if (text === undefined) return undefined;
    this.unparsed.delete(name);
    // Checked as it is read (state-validation.ts): a record that does not validate is dropped, and its
    // target rebuilt, as if it had never been recorded.
    const parsed = parseTargetRecord(text);
    if (parsed === null) return undefined;
    super.set(name, parsed);
    return parsed;
  }

  override has(name: string): boolean {
    return super.has(name) || this.unparsed.has(name);
  }

  override set(name: string, record: TargetRecord): this {
    this.unparsed.delete(name);
    return super.set(name, record);
  }

  override delete(name: string): boolean {
    const wasText = this.unparsed.delete(name);
    return super.delete(name) || wasText;
  }

  override clear(): void {
    this.unparsed.clear();
    super.clear();
  }

  override get size(): number {
    return super.size + this.unparsed.size;
  }

  override keys(): MapIterator<string> {
    this.parseAll();
    return super.keys();
  }

  override values(): MapIterator<TargetRecord> {
    this.parseAll();
    return super.values();
  }

  override entries(): MapIterator<[string, TargetRecord]> {
    this.parseAll();
    return super.entries();
  }

  override [Symbol.iterator](): MapIterator<[string, TargetRecord]> {
    return this.entries();
  }

  override forEach(callback: (value: TargetRecord, key: string, map: Map<string, TargetRecord>) => void, thisArg?: unknown): void {
    this.parseAll();
    super.forEach(callback, thisArg);
  }

  private parseAll(): void {
    for (const name of [...this.unparsed.keys()]) this.get(name);
  }
}
