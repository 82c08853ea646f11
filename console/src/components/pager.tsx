// Paging of a list envelope by offset: the API's `count` is exact, so pages are known.
export const PAGE_SIZE = 25;

export function Pager({
  label,
  count,
  offset,
  limit = PAGE_SIZE,
  onOffset,
}: {
  label: string;
  count: number;
  offset: number;
  limit?: number;
  onOffset: (offset: number) => void;
}) {
  if (count <= limit && offset === 0) return null;
  const page = Math.floor(offset / limit) + 1;
  const pages = Math.max(1, Math.ceil(count / limit));
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Previous page
      </button>
      <span aria-live="polite">
        Page {page} of {pages}
      </span>
      <button type="button" disabled={offset + limit >= count} onClick={() => onOffset(offset + limit)}>
        Next page
      </button>
    </nav>
  );
}
