// Types for dist/src/generated/builtin-rules.js, which scripts/build-builtin-rules.mjs generates from rules/.
/** File name in rules/ -> its text, sorted by name. */
export const BUILTIN_RULES: Readonly<Record<string, string>>;
