/**
 * `episteme/cli`: the command line as a function. Importing it runs nothing; `main` runs one
 * command line (the arguments after `episteme`) and resolves to its exit code. The CLI, not this
 * function, is the supported automation interface.
 */
export declare function main(argv: string[]): Promise<number>;
