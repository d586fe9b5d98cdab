/** Producer version recorded in provenance and build keys. A test pins it to package.json. */
export const PRODUCER_NAME = 'episteme';
export const PRODUCER_VERSION = '0.1.0';
