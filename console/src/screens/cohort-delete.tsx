// Deleting a cohort, after a confirmation that says what goes with it: from the list and its page.
import { api } from '../api/client.ts';
import type { Cohort } from '../api/types.ts';
import { ConfirmButton } from '../components/confirm-dialog.tsx';
import { plural } from '../components/values.tsx';

export function DeleteCohort({
  cohort,
  base,
  onDeleted,
  buttonClass,
  text,
}: {
  cohort: Cohort;
  /** The project's cohorts path (`/api/projects/1/cohorts/`). */
  base: string;
  onDeleted: () => void;
  buttonClass?: string;
  /** A shorter text on the button (a row of the list names the cohort already). */
  text?: string;
}) {
  return (
    <ConfirmButton
      label={`Delete cohort ${cohort.name}`}
      text={text}
      buttonClass={buttonClass}
      title={`Delete the cohort ${cohort.name}?`}
      confirm="Delete cohort"
      keep="Keep cohort"
      onConfirm={async () => {
        await api(`${base}${cohort.id}/`, { method: 'DELETE' });
        onDeleted();
      }}
    >
      <p>
        The cohort goes ({cohort.is_static ? `its list of ${plural(cohort.count, 'person')}` : 'its definition'}); the
        persons stay. A filter on it afterwards is refused, and a dynamic cohort that names it holds nobody.
      </p>
    </ConfirmButton>
  );
}
