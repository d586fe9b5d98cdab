import { createHash } from 'node:crypto';

/**
 * An artifact file's text with its fingerprint computed anew over the bytes as written, as a forger
 * does: the fingerprint (sha256 of the file without its own member and final newline) then holds for
 * text that is not the canonical file a build writes. `edit` changes the text after the member.
 */
export function refingerprinted(text: string, edit: (rest: string) => string): Buffer {
  const head = /^\{"artifact":"[a-z-]+",/.exec(text)![0];
  const member = /^"fingerprint":"sha256:[0-9a-f]{64}",/.exec(text.slice(head.length))![0];
  const rest = edit(text.slice(head.length + member.length));
  const fingerprint = createHash('sha256').update(head).update(rest.slice(0, -1)).digest('hex');
  return Buffer.from(`${head}"fingerprint":"sha256:${fingerprint}",${rest}`, 'utf8');
}
