// The API's error about one field, beside that field: the detail in words (the field is the one it
// sits under), tied to the input by `aria-describedby` so a screen reader reads it with the field.
import type { ApiError } from '../api/client.ts';
import { fieldError } from './feedback.tsx';

// No attrs: every error of the action is this field's (a control that is a form of its own).
const ownError = (error: ApiError | null, attrs: string[]) =>
  attrs.length === 0 ? error : fieldError(error, ...attrs);

/** The attributes the input of a field takes: invalid and described by its error while there is one. */
export function fieldInputProps(error: ApiError | null, id: string, ...attrs: string[]) {
  const own = ownError(error, attrs);
  return own
    ? { 'aria-invalid': 'true' as const, 'aria-describedby': `${id}-error` }
    : { 'aria-invalid': undefined, 'aria-describedby': undefined };
}

/** The error shown under the field whose input has `id`, when the API's `attr` is one of `attrs`. */
export function FieldError({ error, id, attrs = [] }: { error: ApiError | null; id: string; attrs?: string[] }) {
  const own = ownError(error, attrs);
  if (!own) return null;
  return (
    <p class="error field-error" role="alert" id={`${id}-error`}>
      {own.detail}
    </p>
  );
}
