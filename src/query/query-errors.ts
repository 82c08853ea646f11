// What a person is told when PostgreSQL refuses a compiled query: a 400 by the kind of failure,
// never the database's own text or the SQL (which would show herd's tables and internals).
import { isQueryCanceled } from '../db/query-budget.ts';
import { validationError } from '../errors.ts';

const BY_CODE: Record<string, string> = {
  '22P02':
    'A value could not be read as a number, a date or a uuid; convert text with toInt(), toFloat() or toDateTime() (they give NULL for what they cannot read).',
  '22007': 'A value could not be read as a date-time (write YYYY-MM-DD or YYYY-MM-DD HH:MM:SS).',
  '22008': 'A date-time is out of range.',
  '22003': 'A number is out of range.',
  '22012': 'Division by zero.',
  '22023': 'A value is not valid for the function it is given to.',
  '22025': 'A LIKE pattern ends with an escape character (\\).',
  '42803':
    'Every selected column that is not an aggregate must be in GROUP BY (or inside an aggregate such as count() or any()).',
  '42804': 'The values of a column or a comparison have types that cannot be mixed.',
  '42883': 'An operator or function is given a type it does not take; convert with toString(), toInt() or toFloat().',
  '42P10': 'With SELECT DISTINCT, ORDER BY may only use selected columns.',
  '21000': 'A subquery used as a value returned more than one row.',
  '54001': 'The query is too complex to run.',
  '53200': 'The query needs more memory than the server allows: narrow it.',
  '54000': 'The query needs more than the server allows: narrow it.',
};

/** SQLSTATE classes that say the database or the connection failed, not the query: left as server errors. */
const SERVER_SIDE = ['08', '57P', '53100', '53300', '58', 'XX001', 'XX002'];

/**
 * Rethrows `error` as a 400 when the query itself caused it; a cancelled statement (the time limit)
 * and a broken database keep their own answers (504, 500).
 */
export function queryFailure(error: unknown, attr: string): unknown {
  if (isQueryCanceled(error)) return error;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return error;
  if (SERVER_SIDE.some((prefix) => code.startsWith(prefix))) return error;
  const detail =
    BY_CODE[code] ??
    (code.startsWith('22')
      ? 'A value in the data could not be converted as the query asks.'
      : code === 'XX000' || code === '0A000'
        ? 'This query cannot run on this database (a join or subquery shape it does not support); try a simpler form.'
        : 'The query could not run on this data.');
  return validationError(detail, attr, 'query_error');
}
