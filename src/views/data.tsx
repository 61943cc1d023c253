import type { JSX } from 'hono/jsx/jsx-runtime';
/**
 * A plain, fully escaped rendering of any API payload: objects as definition lists, arrays of
 * objects as tables. It is the HTML representation of every route until a screen has a
 * purpose-built view.
 */
export async function DataPage({ value }: { value: unknown }) {
  return <div class="data">{await render(value)}</div>;
}

function render(value: unknown): JSX.Element | string {
  if (value === null || value === undefined) return <span class="muted">—</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span class="muted">(none)</span>;
    if (value.every((v) => v !== null && typeof v === 'object' && !Array.isArray(v))) {
      const keys = [...new Set(value.flatMap((v) => Object.keys(v as object)))];
      return (
        <table>
          <thead>
            <tr>
              {keys.map((k) => (
                <th scope="col">{k}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {value.map((row) => (
              <tr>
                {keys.map(async (k) => (
                  <td>{await render((row as Record<string, unknown>)[k])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      );
    }
    return (
      <ul>
        {value.map(async (v) => (
          <li>{await render(v)}</li>
        ))}
      </ul>
    );
  }
  if (typeof value === 'object') {
    return (
      <dl>
        {Object.entries(value as Record<string, unknown>).map(async ([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd>{await render(v)}</dd>
          </>
        ))}
      </dl>
    );
  }
  return String(value);
}
