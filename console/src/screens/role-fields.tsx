// A role's two settings as form fields, for creating a role and for editing one; the API's error
// appears beside the field it names.
import type { ApiError } from '../api/client.ts';
import { ErrorMessage, formError } from '../components/feedback.tsx';
import { FieldError, fieldInputProps } from '../components/field-error.tsx';
import { ACCESS_LEVELS } from './role-levels.ts';

interface Props {
  idPrefix: string;
  name: string;
  level: number;
  onName: (name: string) => void;
  onLevel: (level: number) => void;
  error: ApiError | null;
}

export function RoleFields({ idPrefix, name, level, onName, onLevel, error }: Props) {
  return (
    <>
      <div class="field">
        <label for={`${idPrefix}-name`}>Role name</label>
        <input
          id={`${idPrefix}-name`}
          value={name}
          onInput={(event) => onName(event.currentTarget.value)}
          {...fieldInputProps(error, `${idPrefix}-name`, 'name')}
        />
        <FieldError error={error} id={`${idPrefix}-name`} attrs={['name']} />
      </div>
      <div class="field">
        <label for={`${idPrefix}-level`}>Feature flag access</label>
        <select
          id={`${idPrefix}-level`}
          value={String(level)}
          onChange={(event) => onLevel(Number(event.currentTarget.value))}
          {...fieldInputProps(error, `${idPrefix}-level`, 'feature_flags_access_level')}
        >
          {ACCESS_LEVELS.map(([value, label]) => (
            <option key={value} value={String(value)}>
              {label}
            </option>
          ))}
        </select>
        <FieldError error={error} id={`${idPrefix}-level`} attrs={['feature_flags_access_level']} />
      </div>
      <ErrorMessage error={formError(error, 'name', 'feature_flags_access_level')} />
    </>
  );
}
