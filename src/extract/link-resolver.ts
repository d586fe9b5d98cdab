/**
 * A document's links as absolute URLs: `#id` against the document URL without its fragment, anything
 * else by the URL parser, an href it cannot parse kept as written. One per document: a spec links the
 * same few hundred targets thousands of times, so each is parsed once.
 */
export class LinkResolver {
  private readonly baseNoHash: string;
  private readonly resolved = new Map<string, string>();

  constructor(private readonly baseUrl: string) {
    this.baseNoHash = baseUrl.split('#')[0] ?? baseUrl;
  }

  resolve(href: string): string {
    if (href.startsWith('#')) return this.baseNoHash + href;
    let resolved = this.resolved.get(href);
    if (resolved === undefined) {
      try {
        resolved = new URL(href, this.baseUrl).href;
      } catch {
        resolved = href;
      }
      this.resolved.set(href, resolved);
    }
    return resolved;
  }
}
