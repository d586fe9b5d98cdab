import { type Element, isTag } from 'domhandler';
import type { DocumentBuilder } from '../document-builder.js';
import { firstStableId } from './anchors.js';

/**
 * `<figure>` with its `<figcaption>`: the caption belongs to the figure's first block (the drawing or
 * code it captions), which takes the figure's id as its fragment. A figure with no block of its own
 * keeps its caption as a paragraph, so no text is lost. A family's caption selectors make other
 * wrappers figures the same way (DocBook's `<div class="table" id><p class="title">`): `captionEl`.
 */
export function walkFigure(
  figure: Element,
  builder: DocumentBuilder,
  walkContent: (figure: Element) => void,
  captionText: (caption: Element) => string,
  captionParagraph: (caption: Element) => void,
  captionEl: Element | undefined = figure.children.find((c): c is Element => isTag(c) && c.name === 'figcaption'),
): void {
  const before = builder.blocks.length;
  walkContent(figure);
  if (!captionEl) return;
  const first = builder.blocks[before];
  const caption = captionText(captionEl);
  if (first === undefined) {
    captionParagraph(captionEl);
    return;
  }
  if (caption !== '') first['caption'] = caption;
  // Without an id of its own, the figure is named by an id in its caption (`<figcaption><a name="fig3">`).
  const id = figure.attribs['id'] || firstStableId(captionEl);
  if (id !== undefined && id !== '') first.fragment = id;
}
