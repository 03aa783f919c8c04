/**
 * How a bank statement's columns are read (OPERATIONS.md section 2; docs/STATEMENTS.md): the schema
 * of a mapping given inline to `POST /statement/import` or saved per bank. Columns are header names as
 * the file writes them (compared trimmed, case and runs of blanks ignored), `headerRow` counts from 1,
 * `utrPattern` is a regular expression whose first group is the UTR. Amounts come either from one
 * `amountColumn` (signed, or with a `directionColumn` saying Dr/Cr) or from `creditColumn` and/or
 * `debitColumn`, never both ways. A mapping without `headerRow` or `dateFormat` finds them in the file.
 */
import * as z from 'zod/mini';

const column = z
  .string()
  .check(z.trim(), z.minLength(1, { message: 'validation.required' }), z.maxLength(100));
const optionalColumn = z.optional(column);

/** Tokens `d dd M MM MMM yy yyyy`; anything else is a literal separator (`dd/MM/yyyy`, `d MMM yyyy`). */
export const statementDateFormat = z.string().check(
  z.trim(),
  z.maxLength(30),
  z.refine((f) => /d/.test(f) && /M/.test(f) && /yy/.test(f), { message: 'statement.dateFormatInvalid' }),
);

/** A regular expression that compiles and has a capturing group (the UTR). */
const utrPattern = z.string().check(
  z.maxLength(200),
  z.refine(
    (p) => {
      try {
        return new RegExp(`${p}|`).exec('')!.length > 1;
      } catch {
        return false;
      }
    },
    { message: 'statement.utrPatternInvalid' },
  ),
);

export const statementMapping = z
  .strictObject({
    /** Absent: the first of the first 60 rows that holds every mapped column. */
    headerRow: z.optional(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(1000))),
    dateColumn: column,
    /** Absent: the form that reads the file's dates (docs/STATEMENTS.md "Detection"). */
    dateFormat: z.optional(statementDateFormat),
    narrationColumn: column,
    referenceColumn: optionalColumn,
    creditColumn: optionalColumn,
    debitColumn: optionalColumn,
    amountColumn: optionalColumn,
    /** With `amountColumn`: the column that says `Dr`/`Cr` (or debit/credit) for each amount. */
    directionColumn: optionalColumn,
    balanceColumn: optionalColumn,
    utrPattern: z.optional(utrPattern),
  })
  .check(
    z.refine(
      (m) => (m.amountColumn ? !m.creditColumn && !m.debitColumn : !!(m.creditColumn || m.debitColumn)),
      {
        message: 'statement.amountColumns',
        path: ['amountColumn'],
      },
    ),
    z.refine((m) => !m.directionColumn || !!m.amountColumn, {
      message: 'statement.directionColumn',
      path: ['directionColumn'],
    }),
  );

export type StatementMapping = z.infer<typeof statementMapping>;
