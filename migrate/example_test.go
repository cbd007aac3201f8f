package migrate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// Example migrates examples/personalization from PostgreSQL into a new
// DynamoDB table by its mapping file, and prints what the report counts.
func Example() {
	ctx := context.Background()
	dsn, drop, err := testenv.ExampleDatabase(ctx) // a database of its own, dropped at the end
	if err != nil {
		log.Fatal(err)
	}
	defer drop()
	endpoint, table, deleteTable := testenv.ExampleDynamoDB() // DynamoDB Local, a new table's name
	defer deleteTable()

	src, err := migrate.OpenSource(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	schema, err := src.Inspect(ctx)
	if err != nil {
		log.Fatal(err)
	}
	f, err := mapping.ParseFile("../examples/personalization/mapping.yaml")
	if err != nil {
		log.Fatal(err)
	}
	plan, err := mapping.Compile(f.ForEngine(schema.Engine), schema)
	if err != nil {
		log.Fatal(err)
	}
	db := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
	})

	rep, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db, Table: table, CreateTable: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range rep.Entities {
		fmt.Printf("%-14s %4d rows, %4d items, %d rejected\n", e.Name, e.Rows, e.Items, e.Rejected)
	}
	fmt.Printf("ok %v: %d rows read, %d items written, keys distinct %v\n", rep.OK, rep.RowsRead, rep.ItemsWritten, rep.KeysDistinct)
	// Output:
	// user           1000 rows, 1000 items, 0 rejected
	// service           6 rows,    6 items, 0 rejected
	// personal       3004 rows, 3004 items, 0 rejected
	// subscribe       335 rows,  335 items, 0 rejected
	// subscribe_user 2483 rows, 2483 items, 0 rejected
	// ok true: 6828 rows read, 6828 items written, keys distinct true
}
