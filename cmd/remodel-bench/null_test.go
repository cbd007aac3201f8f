//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestNullSinkMeasurement: the bench's null-sink measurement is remodel
// migrate --to null: (the test binary standing in for remodel): every row
// of the personalization example counted as an item, and no table made in
// DynamoDB Local for it.
func TestNullSinkMeasurement(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(remodelEnv, "1")
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_REGION": "us-east-1"} {
		t.Setenv(k, v)
	}
	dsn, _, _ := example(t, "postgres")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var log bytes.Buffer
	b := &bench{o: options{source: dsn, mapping: "../../examples/personalization/mapping.yaml", remodel: self,
		endpoint: endpoint, readers: 2, writers: 4, pool: 100, keyCheck: "auto"},
		stderr: &log, names: testenv.UniqueName("bench_test")}
	if err := b.setUp(ctx, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	defer b.src.Close()
	t.Cleanup(func() { deleteTables(t, b) })
	r, err := b.nullSink(ctx)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if r.Items != b.total || b.items != b.total || r.Name != "remodel -> null sink" || r.Wall <= 0 {
		t.Errorf("the null sink's measurement %+v (items %d); want the source's %d rows", r, b.items, b.total)
	}
	out, err := b.db.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range out.TableNames {
		if strings.HasPrefix(name, b.names+"_null") {
			t.Errorf("the null-sink run made table %s", name)
		}
	}
}
