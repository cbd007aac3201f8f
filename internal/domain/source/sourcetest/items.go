package sourcetest

import (
	"math"

	"github.com/remodel-dev/remodel/internal/testsupport/canon"
)

// ItemsSQL is the shared suite's items table, spelled in each engine's
// SQL, by engine name.
var ItemsSQL = map[string]string{
	"postgres": `
CREATE TABLE items (
  id      integer PRIMARY KEY,
  big     bigint,
  amount  numeric(20,6),
  ratio   double precision,
  active  boolean,
  name    varchar(64),
  body    text,
  payload bytea,
  day     date,
  at      timestamp(3),
  at_tz   timestamptz(3),
  doc     json,
  note    text
);
-- Out of key order on purpose; at_tz written in +05:30.
INSERT INTO items VALUES
 (3, -9223372036854775808, -0.000001, -1.5e300, false, '', '', '\x', '1999-12-31',
  '1999-12-31 23:59:59.999', '2000-01-01 05:30:00+05:30', '[]', 'third'),
 (5, 5, 5, 2.5, true, 'five', 'b5', '\x05', '2020-02-29',
  '2020-02-29 12:00:00', '2020-02-29 17:30:00+05:30', '{"n": 5}', 'x'),
 (1, 9007199254740993, 12345678901234.123456, 0.30000000000000004, true, 'Zoë 東京 🚀',
  E'multi\nline "q" ''s\\', '\x0001ff', '2024-01-02',
  '2024-01-02 03:04:05.123', '2024-01-02 08:34:05.123+05:30',
  '{"a": [1, 2.50, "x"], "b": {"c": null}, "big": 12345678901234567890, "s": "é"}', 'first'),
 (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (4, 4, 4.5, 0, false, 'four', 'b4', '\x04', '2020-01-01',
  '2020-01-01 00:00:00.5', '2020-01-01 05:30:00.5+05:30', '{"n": 4}', 'x');
`,
	"mysql": `
SET time_zone = '+05:30';
CREATE TABLE items (
  id      int PRIMARY KEY,
  big     bigint NULL,
  amount  decimal(20,6) NULL,
  ratio   double NULL,
  active  boolean NULL,
  name    varchar(64) NULL,
  body    text NULL,
  payload varbinary(64) NULL,
  day     date NULL,
  at      datetime(3) NULL,
  at_tz   timestamp(3) NULL DEFAULT NULL,
  doc     json NULL,
  note    text NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO items VALUES
 (3, -9223372036854775808, -0.000001, -1.5e300, false, '', '', '', '1999-12-31',
  '1999-12-31 23:59:59.999', '2000-01-01 05:30:00', '[]', 'third'),
 (5, 5, 5, 2.5, true, 'five', 'b5', X'05', '2020-02-29',
  '2020-02-29 12:00:00', '2020-02-29 17:30:00', '{"n": 5}', 'x'),
 (1, 9007199254740993, 12345678901234.123456, 0.30000000000000004, true, 'Zoë 東京 🚀',
  'multi\nline "q" ''s\\', X'0001ff', '2024-01-02',
  '2024-01-02 03:04:05.123', '2024-01-02 08:34:05.123',
  '{"a": [1, 2.50, "x"], "b": {"c": null}, "big": 12345678901234567890, "s": "é"}', 'first'),
 (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (4, 4, 4.5, 0, false, 'four', 'b4', X'04', '2020-01-01',
  '2020-01-01 00:00:00.5', '2020-01-01 05:30:00.5', '{"n": 4}', 'x');
`,
}

// ItemsRows are the canonical values of items in primary-key order.
var ItemsRows = [][]any{
	{int64(1), int64(9007199254740993), "12345678901234.123456", 0.30000000000000004, true, "Zoë 東京 🚀",
		"multi\nline \"q\" 's\\", []byte{0, 1, 0xff}, canon.UTC(2024, 1, 2, 0, 0, 0, 0),
		canon.UTC(2024, 1, 2, 3, 4, 5, 123e6), canon.UTC(2024, 1, 2, 3, 4, 5, 123e6),
		[]byte(`{"a":[1,2.50,"x"],"b":{"c":null},"big":12345678901234567890,"s":"é"}`), "first"},
	{int64(2), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
	{int64(3), int64(math.MinInt64), "-0.000001", -1.5e300, false, "", "", []byte{}, canon.UTC(1999, 12, 31, 0, 0, 0, 0),
		canon.UTC(1999, 12, 31, 23, 59, 59, 999e6), canon.UTC(2000, 1, 1, 0, 0, 0, 0), []byte(`[]`), "third"},
	{int64(4), int64(4), "4.500000", 0.0, false, "four", "b4", []byte{4}, canon.UTC(2020, 1, 1, 0, 0, 0, 0),
		canon.UTC(2020, 1, 1, 0, 0, 0, 5e8), canon.UTC(2020, 1, 1, 0, 0, 0, 5e8), []byte(`{"n": 4}`), "x"},
	{int64(5), int64(5), "5.000000", 2.5, true, "five", "b5", []byte{5}, canon.UTC(2020, 2, 29, 0, 0, 0, 0),
		canon.UTC(2020, 2, 29, 12, 0, 0, 0), canon.UTC(2020, 2, 29, 12, 0, 0, 0), []byte(`{"n": 5}`), "x"},
}
