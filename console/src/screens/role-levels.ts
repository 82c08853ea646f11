// Feature-flag access levels of a role, as the API numbers them.
export const ACCESS_LEVELS: Array<[level: number, label: string]> = [
  [37, 'Can always edit'],
  [21, 'Can only view'],
];

export const accessLabel = (level: number) => ACCESS_LEVELS.find(([value]) => value === level)?.[1] ?? String(level);

export const MEMBER_LEVELS: Array<[level: number, label: string]> = [
  [1, 'Member'],
  [8, 'Admin'],
  [15, 'Owner'],
];

export const memberLevelLabel = (level: number) =>
  MEMBER_LEVELS.find(([value]) => value === level)?.[1] ?? String(level);

export const userName = (user: { first_name: string; last_name?: string; email: string }) =>
  [user.first_name, user.last_name].filter((part) => part).join(' ') || user.email;
