/**
 * Formats whose bytes say what they are: the signatures of the WHATWG MIME Sniffing Standard's
 * "rules for identifying an unknown MIME type" for binary formats a map or a server may mislabel as
 * text. A PDF labelled text/html is mostly ASCII, so it decodes without invalid bytes and would be
 * indexed as its raw operators, with nothing said.
 */
export interface Signature {
  /** What the bytes are, for a message ("a PDF"). */
  name: string;
  /** The content type that reads them ("application/pdf"). */
  contentType: string;
}

const SIGNATURES: { signature: Signature; bytes: readonly number[] }[] = [
  { signature: { name: 'a PDF', contentType: 'application/pdf' }, bytes: ascii('%PDF-') },
  { signature: { name: 'a PNG image', contentType: 'image/png' }, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { signature: { name: 'a GIF image', contentType: 'image/gif' }, bytes: ascii('GIF87a') },
  { signature: { name: 'a GIF image', contentType: 'image/gif' }, bytes: ascii('GIF89a') },
  { signature: { name: 'a JPEG image', contentType: 'image/jpeg' }, bytes: [0xff, 0xd8, 0xff] },
  { signature: { name: 'a ZIP archive', contentType: 'application/zip' }, bytes: [0x50, 0x4b, 0x03, 0x04] },
  { signature: { name: 'gzip-compressed data', contentType: 'application/x-gzip' }, bytes: [0x1f, 0x8b, 0x08] },
];

function ascii(text: string): number[] {
  return [...text].map((c) => c.charCodeAt(0));
}

/** The binary format whose signature `bytes` start with, or null. */
export function binarySignature(bytes: Uint8Array): Signature | null {
  for (const { signature, bytes: prefix } of SIGNATURES) {
    if (bytes.length >= prefix.length && prefix.every((byte, i) => bytes[i] === byte)) return signature;
  }
  return null;
}
