package introspect_test

import (
	"context"
	"fmt"
	"log"

	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/introspect/postgres"
)

// Example reads the schema of a PostgreSQL database holding
// examples/personalization with the engine's inspector
// (introspect/postgres; introspect/mysql is MySQL's) and prints each table
// with its rows, key, foreign keys and the Kind of each key column.
func Example() {
	ctx := context.Background()
	dsn, drop, err := testenv.ExampleDatabase(ctx) // a database of its own, dropped at the end
	if err != nil {
		log.Fatal(err)
	}
	defer drop()

	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)
	var inspector introspect.Inspector = postgres.New(conn)
	schema, err := inspector.Inspect(ctx)
	if err != nil {
		log.Fatal(err)
	}

	fmt.Println(schema.Engine, "schema", schema.Tables[0].Schema)
	for _, t := range schema.Tables {
		rows, _, _ := t.Rows()
		fmt.Printf("%s: %d rows, key %v", t.Name, rows, t.PrimaryKey)
		for _, c := range t.PrimaryKey {
			fmt.Printf(" %s", t.Column(c).Kind)
		}
		for _, fk := range t.ForeignKeys {
			fmt.Printf("; %v -> %s", fk.Columns, fk.RefTable)
		}
		fmt.Println()
	}
	// Output:
	// postgres schema public
	// personal: 3004 rows, key [user_id service setting_type] int string string; [service] -> services; [user_id] -> users
	// services: 6 rows, key [service] string
	// subscribe: 335 rows, key [service content_type content_origin_id] string string int; [service] -> services
	// subscribe_user: 2483 rows, key [user_id service content_type content_origin_id] int string string int; [service content_type content_origin_id] -> subscribe; [user_id] -> users
	// users: 1000 rows, key [user_id] int
}
