import { MAX_LINK_TEXT } from '../input-bounds.js';
import { normalizeSpace } from '../text-sink.js';

interface OpenLink {
  parts: string[];
  length: number;
  /** More text came than MAX_LINK_TEXT code units: the text is cut. */
  cut: boolean;
}

/**
 * The texts of the links being written, gathered from the text nodes the flow writes as it passes
 * them (and the text of the subtrees it skips), instead of reading each link's subtree again: with
 * links nested 512 deep, reading each one's subtree copied the rest of the document 512 times. Each
 * link keeps at most MAX_LINK_TEXT code units, so a text node costs one step per link still filling,
 * and the whole document O(size + links x MAX_LINK_TEXT).
 *
 * A link's text is what `textOf(element)` gives (every text node below it, in order, whether rendered
 * or not), spaces collapsed; a longer one is cut and ends in "…".
 */
export class LinkTexts {
  /** Open links, outermost first. An outer link has received all an inner one has, so the cut ones come first. */
  private open: OpenLink[] = [];
  /** open[0..cutCount) are cut: text goes to the others only. */
  private cutCount = 0;

  /** True when some open link still takes text (the caller may skip computing text no one takes). */
  get collecting(): boolean {
    return this.cutCount < this.open.length;
  }

  /** A link starts: the text written until its `end()` is its text. */
  begin(): void {
    this.open.push({ parts: [], length: 0, cut: false });
  }

  /** Text written inside every open link. */
  text(data: string): void {
    if (data === '') return;
    const open = this.open;
    for (let i = this.cutCount; i < open.length; i++) {
      const link = open[i]!;
      const room = MAX_LINK_TEXT - link.length;
      if (data.length <= room) {
        link.parts.push(data);
        link.length += data.length;
        continue;
      }
      let end = room;
      // Never keep half of a surrogate pair.
      if (end > 0 && isHighSurrogate(data.charCodeAt(end - 1))) end -= 1;
      if (end > 0) link.parts.push(data.slice(0, end));
      link.length = MAX_LINK_TEXT;
      link.cut = true;
    }
    while (this.cutCount < open.length && open[this.cutCount]!.cut) this.cutCount++;
  }

  /** The innermost link ends: its text, spaces collapsed, cut ones ending in "…". */
  end(): string {
    const link = this.open.pop()!;
    if (this.cutCount > this.open.length) this.cutCount = this.open.length;
    const text = normalizeSpace(link.parts.join(''));
    return link.cut ? `${text}…` : text;
  }

  /** Sets the open links aside (text written apart, e.g. a cell's own text) until `restore`. */
  setAside(): { open: OpenLink[]; cutCount: number } {
    const saved = { open: this.open, cutCount: this.cutCount };
    this.open = [];
    this.cutCount = 0;
    return saved;
  }

  restore(saved: { open: OpenLink[]; cutCount: number }): void {
    this.open = saved.open;
    this.cutCount = saved.cutCount;
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
