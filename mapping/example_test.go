package mapping_test

import (
	"fmt"
	"log"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// mappingYAML is a mapping file: customers become items keyed
// CUSTOMER#<id>, with one column renamed and one access pattern.
const mappingYAML = `version: 1
table:
  name: shop
  key: {pk: PK, sk: SK}
entities:
  customer:
    from: customers
    pk: "CUSTOMER#{customer_id}"
    sk: "PROFILE"
    attributes:
      rename: {full_name: name}
access_patterns:
  findCustomer:
    query: {pk: "CUSTOMER#{customer_id}", sk: "PROFILE"}
    entity: customer
    sql: SELECT * FROM customers WHERE customer_id = {customer_id}
`

// customers is the schema introspect reads of a database with one table
// (here written out; introspect/postgres and introspect/mysql read it).
var customers = &introspect.Schema{
	Engine: introspect.Postgres,
	Tables: []*introspect.Table{{
		Schema: "public",
		Name:   "customers",
		Columns: []*introspect.Column{
			{Name: "customer_id", Type: "bigint", Kind: introspect.KindInt},
			{Name: "full_name", Type: "text", Kind: introspect.KindString},
			{Name: "joined", Type: "timestamp with time zone", Kind: introspect.KindTimestampTZ, Nullable: true},
		},
		PrimaryKey: []string{"customer_id"},
	}},
}

// Example parses a mapping file, compiles it against the source's schema
// into a Plan, and renders one row (canonical values, in the entity's
// column order) into the item migrate would write.
func Example() {
	f, err := mapping.Parse("mapping.yaml", []byte(mappingYAML))
	if err != nil {
		log.Fatal(err)
	}
	plan, err := mapping.Compile(f, customers)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range plan.Entities {
		fmt.Printf("entity %s reads %s into table %s (key %s, %s)\n", e.Name, e.Table.Name, plan.Table.Name, plan.Table.PK.Name, plan.Table.SK.Name)
	}
	for _, ap := range plan.AccessPatterns {
		fmt.Printf("access pattern %s queries %s\n", ap.Name, ap.Target())
	}

	customer := plan.Entities[0]
	item, err := customer.Render([]any{int64(42), "Zoë Smith", time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(plan.Table.KeyString(item))
	for _, name := range slices.Sorted(maps.Keys(item)) {
		fmt.Printf("  %s %s\n", name, show(item[name]))
	}
	// Output:
	// entity customer reads customers into table shop (key PK, SK)
	// access pattern findCustomer queries the table
	// PK=CUSTOMER#42 SK=PROFILE
	//   PK S CUSTOMER#42
	//   SK S PROFILE
	//   _type S customer
	//   customer_id N 42
	//   joined S 2024-05-01T12:00:00Z
	//   name S Zoë Smith
}

// show renders the attribute values of this example.
func show(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return "S " + v.Value
	case *types.AttributeValueMemberN:
		return "N " + v.Value
	}
	return fmt.Sprintf("%T", v)
}
