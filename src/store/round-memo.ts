/**
 * Values of a pure function for the keys of this round and the last one: a lookup that misses this
 * round takes the last round's value, else computes it. `nextRound` forgets what the last round had
 * and this round did not use, so memory stays at about two rounds' keys.
 */
export class RoundMemo<K, V> {
  private last = new Map<K, V>();
  private current = new Map<K, V>();
  constructor(private readonly compute: (key: K) => V) {}

  get(key: K): V {
    let value = this.current.get(key);
    if (value === undefined) {
      value = this.last.get(key) ?? this.compute(key);
      this.current.set(key, value);
    }
    return value;
  }

  nextRound(): void {
    this.last = this.current;
    this.current = new Map();
  }
}
