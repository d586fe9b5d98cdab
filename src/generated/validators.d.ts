// Types for dist/src/generated/validators.js, which scripts/build-validators.mjs generates from schema/.
export interface AjvError {
  instancePath: string;
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
