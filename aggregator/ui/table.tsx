import type { ComponentChildren } from 'preact';

/** One column of a RowTable: its heading, and what a row shows in it. */
export interface Column<Row> {
  heading: string;
  cell(row: Row): ComponentChildren;
  /** The cell's class (tests and styles find cells by it). */
  class?: string;
  /** The cell's `data-*` attributes. */
  cellData?(row: Row): Record<`data-${string}`, string>;
}

/**
 * The dashboard's table of rows: striped, scrolling sideways when narrow, the first column heading
 * each row for screen readers; `rowData` gives each row's `data-*` attributes.
 */
export function RowTable<Row>(props: {
  rows: Row[];
  columns: Column<NoInfer<Row>>[];
  rowKey(row: Row): string;
  rowData(row: Row): Record<`data-${string}`, string>;
  class?: string;
  caption?: string;
}) {
  const [first, ...rest] = props.columns;
  return (
    <div class="overflow-auto">
      <table class={props.class ? `striped ${props.class}` : 'striped'}>
        {props.caption ? <caption class="visually-hidden">{props.caption}</caption> : null}
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col" key={column.heading}>
                {column.heading}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)} {...props.rowData(row)}>
              {first ? (
                <th scope="row" class={first.class}>
                  {first.cell(row)}
                </th>
              ) : null}
              {rest.map((column) => (
                <td key={column.heading} class={column.class} {...column.cellData?.(row)}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
