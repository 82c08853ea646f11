// Errors of the API shown where they happened: the envelope's detail beside the field it names, or,
// when no field of the form shows it, the field named in words before the detail.
import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api/client.ts';
import { projectHref } from '../router.ts';

/** A field of the API (`feature_flags_access_level`) as a person reads it ("Feature flags access level"). */
export function fieldWords(attr: string): string {
  const words = attr.replace(/[_.]+/g, ' ').trim();
  return words === '' ? attr : words[0].toUpperCase() + words.slice(1);
}

export function ErrorMessage({
  error,
  id,
  fields,
}: {
  error: ApiError | null;
  id?: string;
  /** Names in words of the fields the form has, by the API's `attr`; others are spelled from the attr. */
  fields?: Record<string, string>;
}) {
  if (!error) return null;
  return (
    <p class="error" role="alert" id={id}>
      {error.attr ? <span class="error-field">{fields?.[error.attr] ?? fieldWords(error.attr)}: </span> : null}
      {error.detail}
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

type SuccessListener = () => void;
const successListeners = new Set<SuccessListener>();

/**
 * Called when an action succeeded: an error an earlier action left on the screen is stale then
 * (a refused name stays no longer than the next change that went through).
 */
export function announceSuccess() {
  for (const listener of [...successListeners]) listener();
}

export function onSuccessAnywhere(listener: SuccessListener): () => void {
  successListeners.add(listener);
  return () => successListeners.delete(listener);
}

/** The link back to one of the project's lists, above a detail page and under its errors. */
export function BackTo({ projectId, list }: { projectId: number; list: ProjectList }) {
  return (
    <p>
      <a href={projectHref(projectId, list)}>Back to {list}</a>
    </p>
  );
}

type ProjectList = 'persons' | 'cohorts' | 'roles';

/** A detail page showing no object (it could not be loaded, or is gone): its heading, why, the way back. */
export function DetailMessage({
  title,
  projectId,
  list,
  children,
}: {
  title: string;
  projectId: number;
  list: ProjectList;
  children: ComponentChildren;
}) {
  return (
    <>
      <h1 tabIndex={-1}>{title}</h1>
      {children}
      <BackTo projectId={projectId} list={list} />
    </>
  );
}
