export type VariableType = 'text' | 'date' | 'number' | 'boolean' | 'list' | 'image';

export interface Variable {
  name: string;
  type: VariableType;
  required: boolean;
  format?: unknown;
  fields?: string[];
  field_types?: Record<string, VariableType>;
}

export interface Template {
  id: string;
  name: string;
  format: 'docx' | 'html';
  is_uat: boolean;
  locale?: string;
  variables: Variable[];
  corrected_tokens: { from: string; to: string }[];
  created_at: string;
  updated_at: string;
}

export type DocumentStatus = 'queued' | 'rendering' | 'ready' | 'failed';
export type OutputFormat = 'pdf' | 'docx' | 'both';

export interface DocumentRecord {
  id: string;
  template_id: string;
  status: DocumentStatus;
  output_format: OutputFormat;
  is_uat: boolean;
  input_json: Record<string, unknown> | null;
  created_at: string;
  completed_at: string | null;
  error_message?: string;
  files: ('pdf' | 'docx')[];
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export type JsonSchema = Record<string, unknown>;
