// The SQL screen: a HogQL query run through `POST /query/`, its rows as a table under their
// columns, whether more rows follow, and an error at the line and column the API names (the caret
// is put there). A few examples fill the box with one click.
import { useRef, useState } from 'preact/hooks';
import { api, type ApiError } from '../api/client.ts';
import type { QueryResult } from '../api/types.ts';
import { ErrorMessage } from '../components/feedback.tsx';
import { useAction } from '../components/use-load.ts';
import { plural, valueText } from '../components/values.tsx';
import type { ProjectContext } from '../workspace.ts';

const EXAMPLES: Array<[label: string, query: string]> = [
  [
    'Events by name, last 7 days',
    'select event, count() as events\nfrom events\nwhere timestamp > now() - interval 7 day\ngroup by event\norder by events desc',
  ],
  [
    'Newest events',
    'select timestamp, event, distinct_id, properties.$current_url as url\nfrom events\norder by timestamp desc\nlimit 20',
  ],
  [
    'Events per person e-mail',
    'select person.properties.email as email, count() as events\nfrom events\nwhere person.properties.email is not null\ngroup by email\norder by events desc',
  ],
  [
    'Newest persons',
    'select id, properties.email as email, created_at\nfrom persons\norder by created_at desc\nlimit 20',
  ],
];

const POSITION = /\(line (\d+), column (\d+)\)/;

/** Where an error's detail says it is, as the API writes it: `(line L, column C)`. */
export function errorPosition(error: ApiError | null): { line: number; column: number } | null {
  const match = error ? POSITION.exec(error.detail) : null;
  return match ? { line: Number(match[1]), column: Number(match[2]) } : null;
}

/** The offset in `text` of a 1-based line and column. */
function offsetOf(text: string, line: number, column: number): number {
  const lines = text.split('\n');
  let offset = 0;
  for (let index = 0; index < Math.min(line - 1, lines.length - 1); index++) offset += lines[index].length + 1;
  return Math.min(text.length, offset + Math.max(0, column - 1));
}

function ResultTable({ result }: { result: QueryResult }) {
  return (
    <>
      <p role="status">
        {plural(result.results.length, 'row')}
        {result.hasMore
          ? ` shown — more rows follow beyond this query's limit of ${result.limit} (a LIMIT of up to 50 000 shows more).`
          : ', all of them.'}
      </p>
      <div class="table-scroll">
        <table>
          <caption>Query results</caption>
          <thead>
            <tr>
              {result.columns.map((column, index) => (
                <th scope="col" key={index}>
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {result.results.map((row, rowIndex) => (
              <tr key={rowIndex}>
                {row.map((value, index) => (
                  <td key={index}>{value === null ? <span class="muted">null</span> : valueText(value)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="muted">
        Ran as: <code>{result.hogql}</code>
      </p>
    </>
  );
}

export function SqlScreen({ context }: { context: ProjectContext }) {
  const [query, setQuery] = useState(EXAMPLES[0][1]);
  const [result, setResult] = useState<QueryResult | null>(null);
  const action = useAction();
  const box = useRef<HTMLTextAreaElement>(null);
  const position = errorPosition(action.error);

  const run = (event?: Event) => {
    event?.preventDefault();
    setResult(null);
    void action.run(async () => {
      try {
        setResult(
          await api<QueryResult>(`/api/projects/${context.project.id}/query/`, {
            method: 'POST',
            body: { query: { kind: 'HogQLQuery', query } },
          }),
        );
      } catch (error) {
        const at = errorPosition(error as ApiError);
        if (at && box.current) {
          const offset = offsetOf(query, at.line, at.column);
          box.current.focus();
          box.current.setSelectionRange(offset, offset);
        }
        throw error;
      }
    });
  };

  return (
    <>
      <h1 tabIndex={-1}>SQL</h1>
      <p class="muted">
        HogQL over this project's <code>events</code>, <code>persons</code> and <code>person_distinct_ids</code>:
        read-only, one <code>select</code>, 100 rows unless a <code>LIMIT</code> says otherwise.
      </p>
      <section aria-labelledby="examples-heading">
        <h2 id="examples-heading">Examples</h2>
        <ul class="examples">
          {EXAMPLES.map(([label, text]) => (
            <li key={label}>
              <button type="button" onClick={() => setQuery(text)}>
                {label}
              </button>
            </li>
          ))}
        </ul>
      </section>
      <form onSubmit={run} aria-label="Query">
        <label for="hogql-query">HogQL query</label>
        <textarea
          id="hogql-query"
          ref={box}
          rows={8}
          spellcheck={false}
          class="code"
          value={query}
          aria-invalid={action.error ? 'true' : undefined}
          aria-describedby={action.error ? 'hogql-error' : undefined}
          onInput={(event) => setQuery(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) run(event);
          }}
        />
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            Run query
          </button>
        </div>
      </form>
      {position ? (
        <p class="error-position">
          Error at line {position.line}, column {position.column}
        </p>
      ) : null}
      <ErrorMessage error={action.error} id="hogql-error" />
      {result ? <ResultTable result={result} /> : null}
    </>
  );
}
