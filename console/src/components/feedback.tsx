// Errors of the API shown where they happened: the envelope's detail, and the field it names.
import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api/client.ts';

export function ErrorMessage({ error, id }: { error: ApiError | null; id?: string }) {
  if (!error) return null;
  return (
    <p class="error" role="alert" id={id}>
      {error.detail}
      {error.attr ? <span class="error-attr"> (field: {error.attr})</span> : null}
    </p>
  );
}

/** The error of one field: shown under it when the API's `attr` names it. */
export function fieldError(error: ApiError | null, ...attrs: string[]): ApiError | null {
  return error && error.attr && attrs.includes(error.attr) ? error : null;
}

/** The error of a form that no field of it shows. */
export function formError(error: ApiError | null, ...attrs: string[]): ApiError | null {
  return error && !(error.attr && attrs.includes(error.attr)) ? error : null;
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}
