package verify_test

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
	"github.com/remodel-dev/remodel/verify"
)

// Example migrates examples/personalization from PostgreSQL into a new
// DynamoDB table, then verifies the table against the source: the counts
// per entity, every item compared with its row, and each access pattern
// run as a Query and compared with its SQL.
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
		// DynamoDB Local on a loaded machine may answer 500 for a while:
		// more attempts than the SDK's three.
		RetryMaxAttempts: 10,
	})
	if _, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db, Table: table, CreateTable: true}); err != nil {
		log.Fatal(err)
	}

	rep, err := verify.Run(ctx, verify.Options{Plan: plan, Source: src, DB: db, Table: table, Samples: 5, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range rep.Counts {
		fmt.Printf("%-14s %4d rows, %4d items, ok %v\n", c.Entity, c.Source, c.Items, c.OK)
	}
	for _, c := range rep.Items {
		fmt.Printf("%-14s %4d items compared, %d missing, %d different\n", c.Entity, c.Compared, c.Missing, c.Different)
	}
	for _, p := range rep.Patterns {
		fmt.Printf("%-44s %d samples, ok %v\n", p.Name, p.Samples, p.OK)
		for _, pr := range p.Problems.List { // none when it passes
			fmt.Println("  problem:", pr.Message)
		}
	}
	fmt.Printf("%d stray items\n", rep.Stray.Total)
	verdict := "FAIL"
	if rep.OK {
		verdict = "PASS"
	}
	fmt.Println("verify", verdict)
	// Output:
	// user           1000 rows, 1000 items, ok true
	// service           6 rows,    6 items, ok true
	// personal       3004 rows, 3004 items, ok true
	// subscribe       335 rows,  335 items, ok true
	// subscribe_user 2483 rows, 2483 items, ok true
	// user           1000 items compared, 0 missing, 0 different
	// service           6 items compared, 0 missing, 0 different
	// personal       3004 items compared, 0 missing, 0 different
	// subscribe       335 items compared, 0 missing, 0 different
	// subscribe_user 2483 items compared, 0 missing, 0 different
	// findUserByUserId                             5 samples, ok true
	// findServiceByService                         5 samples, ok true
	// findPersonalByUserIdAndService               5 samples, ok true
	// findPersonalByUserIdAndServiceAndSettingType 5 samples, ok true
	// findSubscribeByServiceAndContentType         5 samples, ok true
	// findUserBySubscribeService                   5 samples, ok true
	// 0 stray items
	// verify PASS
}
