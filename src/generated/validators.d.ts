// Types for dist/src/generated/validators.js, which scripts/build-validators.mjs generates from schema/.
export interface AjvError {
  instancePath: string;
  schemaPath?: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}
export interface Validator {
  (data: unknown): boolean;
  errors?: AjvError[] | null;
}
export const validateWorkspaceConfig: Validator;
export const validateManualIngestMap: Validator;
export const validateManifest: Validator;
export const validateEnvelope: Validator;
export const validateArtifact: Validator;
export const validateDocumentSchema: Validator;
export const validateRulesSchema: Validator;
/** Per validator: schema path of each bounded number field -> its type and range (null: unbounded). */
export const schemaRanges: Record<string, Record<string, { type: 'integer' | 'number'; min: number | null; max: number | null }>>;
/** Per validator: schema path of each closed object (additionalProperties: false) -> its field names. */
export const schemaFields: Record<string, Record<string, string[]>>;
