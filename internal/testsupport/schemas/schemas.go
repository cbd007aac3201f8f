// Package schemas holds the hand-built schemas the mapping packages' tests
// compile mapping files against: the personalization database of the
// seeds (Personalization) and the same with a table of every column kind,
// a view and queries (Mapping).
package schemas

import "github.com/remodel-dev/remodel/introspect"

// Col, Nullable and Precision build the columns of hand-built schemas.
func Col(name, typ string, kind introspect.Kind) *introspect.Column {
	return &introspect.Column{Name: name, Type: typ, Kind: kind}
}

func Nullable(c *introspect.Column) *introspect.Column { c.Nullable = true; return c }

func Precision(c *introspect.Column, p int) *introspect.Column { c.Precision = p; return c }

// personalizationSchema is examples/personalization/schema.postgres.sql as
// the PostgreSQL inspector describes it.
func Personalization() *introspect.Schema {
	bigint := func(n string) *introspect.Column { return Col(n, "bigint", introspect.KindInt) }
	varchar := func(n string, l string) *introspect.Column {
		return Col(n, "character varying("+l+")", introspect.KindString)
	}
	tstz := func(n string) *introspect.Column {
		return Precision(Col(n, "timestamp(0) with time zone", introspect.KindTimestampTZ), 0)
	}
	return &introspect.Schema{
		Engine:   introspect.Postgres,
		Database: "personalization",
		Tables: []*introspect.Table{
			{
				Schema: "public", Name: "users",
				Columns: []*introspect.Column{
					bigint("user_id"), varchar("email", "255"), varchar("name", "100"),
					Col("is_active", "boolean", introspect.KindBool), tstz("created_at"),
				},
				PrimaryKey: []string{"user_id"},
			},
			{
				Schema: "public", Name: "services",
				Columns:    []*introspect.Column{varchar("service", "32"), varchar("display_name", "100"), tstz("created_at")},
				PrimaryKey: []string{"service"},
			},
			{
				Schema: "public", Name: "personal",
				Columns: []*introspect.Column{
					bigint("user_id"), varchar("service", "32"), varchar("setting_type", "32"),
					Col("settings", "jsonb", introspect.KindJSON), tstz("updated_at"),
				},
				PrimaryKey: []string{"user_id", "service", "setting_type"},
				ForeignKeys: []introspect.ForeignKey{
					{Name: "fk_personal_user", Columns: []string{"user_id"}, RefSchema: "public", RefTable: "users", RefColumns: []string{"user_id"}},
					{Name: "fk_personal_service", Columns: []string{"service"}, RefSchema: "public", RefTable: "services", RefColumns: []string{"service"}},
				},
			},
			{
				Schema: "public", Name: "subscribe",
				Columns: []*introspect.Column{
					varchar("service", "32"), varchar("content_type", "32"), bigint("content_origin_id"),
					varchar("title", "200"), tstz("created_at"),
				},
				PrimaryKey: []string{"service", "content_type", "content_origin_id"},
			},
			{
				Schema: "public", Name: "subscribe_user",
				Columns: []*introspect.Column{
					bigint("user_id"), varchar("service", "32"), varchar("content_type", "32"),
					bigint("content_origin_id"), tstz("subscribed_at"),
				},
				PrimaryKey: []string{"user_id", "service", "content_type", "content_origin_id"},
			},
		},
	}
}

// Mapping is the personalization schema plus a table "things" with a
// column of every kind, for the compile and render tests.
func Mapping() *introspect.Schema {
	s := Personalization()
	s.Tables = append(s.Tables, &introspect.Table{
		Schema: "public", Name: "things",
		Columns: []*introspect.Column{
			Col("id", "bigint", introspect.KindInt),
			Nullable(Col("code", "text", introspect.KindString)),
			Nullable(Col("price", "numeric", introspect.KindDecimal)),
			Nullable(Col("score", "double precision", introspect.KindFloat)),
			Nullable(Col("flag", "boolean", introspect.KindBool)),
			Nullable(Col("blob", "bytea", introspect.KindBytes)),
			Nullable(Col("day", "date", introspect.KindDate)),
			Nullable(Col("at", "time without time zone", introspect.KindTime)),
			Nullable(Precision(Col("ts", "timestamp(6) without time zone", introspect.KindTimestamp), 6)),
			Nullable(Precision(Col("tstz", "timestamp(3) with time zone", introspect.KindTimestampTZ), 3)),
			Nullable(Col("doc", "jsonb", introspect.KindJSON)),
			Nullable(&introspect.Column{Name: "tags", Type: "text[]", Kind: introspect.KindArray, Elem: introspect.KindString}),
			Nullable(Col("opts", "set('a','b','c')", introspect.KindSet)),
		},
		PrimaryKey: []string{"id"},
	}, &introspect.Table{
		Schema: "public", Name: "active_users", View: true,
		Columns: []*introspect.Column{Nullable(Col("user_id", "bigint", introspect.KindInt)), Nullable(Col("email", "character varying(255)", introspect.KindString))},
	})
	s.AddQuery(WeeklyQuery, []*introspect.Column{
		Nullable(Col("user_id", "bigint", introspect.KindInt)),
		Nullable(Col("week", "integer", introspect.KindInt)),
		Nullable(Col("top", "integer", introspect.KindInt)),
	})
	s.AddQuery("SELECT user_id, user_id FROM users", []*introspect.Column{
		Nullable(Col("user_id", "bigint", introspect.KindInt)),
		Nullable(Col("user_id", "bigint", introspect.KindInt)),
	})
	return s
}

// WeeklyQuery is a query whose columns Mapping knows: the best score of
// each user and week.
const WeeklyQuery = "SELECT user_id, week, max(score) AS top FROM plays GROUP BY user_id, week"
