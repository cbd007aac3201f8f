//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// remodelEnv set to 1 makes the test binary remodel itself (TestMain): the
// kill loop's test runs it as the remodel binary it kills and resumes.
const remodelEnv = "BENCH_TEST_REMODEL"

// TestKillLoopEmbedded: the kill loop on the personalization example's
// rows (6 828) runs the main mapping's job and then the embedded
// mapping's (personalization-embed.yaml: users with their settings and
// subscriptions embedded), on both engines (PostgreSQL at --ranges 1,
// MariaDB at --ranges 3); each is killed at seeded points (seed 55: the
// embedded job's at 32% and 67%; remodel slowed by --rate-limit so that the
// kills come before the end), resumed, and
// proven exact (item count, the last report against the last checkpoint,
// verify). The embedded job's kills fall with users part done, and its
// user items hold the embedded lists. Fails if the embedded job is
// dropped from the loop.
func TestKillLoopEmbedded(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(remodelEnv, "1")
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_REGION": "us-east-1"} {
		t.Setenv(k, v) // as main sets them, for the bench's client and remodel's
	}
	for i, engine := range []string{"postgres", "mysql"} {
		ranges := 1 + 2*i
		t.Run(fmt.Sprintf("%s/ranges=%d", engine, ranges), func(t *testing.T) {
			dsn, _, _ := example(t, engine)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			var log bytes.Buffer
			b := &bench{o: options{source: dsn, mapping: "../../examples/personalization/mapping.yaml", remodel: self,
				endpoint: endpoint, readers: 2, writers: 4, pool: 100, keyCheck: "auto",
				killLoop: 2, killSeed: 55, killRanges: []int{ranges}, killOnly: true, killEmbed: "personalization-embed.yaml"},
				stderr: &log, names: testenv.UniqueName("bench_test")}
			if err := b.setUp(ctx, t.TempDir()); err != nil {
				t.Fatal(err)
			}
			defer b.src.Close()
			t.Cleanup(func() { deleteTables(t, b) })
			b.m.extra = append(b.m.extra, "--rate-limit", "1500", "--checkpoint-every", "200ms")
			// The embedded job writes 1 341 larger items: slower, so that its
			// kills land while it writes its users even on a loaded machine
			// (at 1500 it finished in 4 s, before its first kill).
			b.m.embedExtra = []string{"--rate-limit", "150"}
			seed, runs, err := b.killLoops(ctx)
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			var out bytes.Buffer
			writeKills(&out, seed, runs, result{})
			t.Logf("%s\n%s", log.String(), out.String())

			if len(runs) != 2 || runs[0].M.label != "main" || runs[1].M.label != "embedded" {
				t.Fatalf("%d jobs, want the main mapping's and the embedded one's", len(runs))
			}
			for _, r := range runs {
				if r.Items != r.M.rows || r.M.rows == 0 || !strings.Contains(r.Verdict, "PASS") || r.Ranges != ranges {
					t.Errorf("%s: %d items of %d rows, verify %q", r.M.job(r.Ranges), r.Items, r.M.rows, r.Verdict)
				}
			}
			emb := runs[1]
			if emb.M.rows != 1000+6+335 || len(emb.M.embeds) != 2 || emb.M.embeds[0].rows != 3004 || emb.M.embeds[1].rows != 2483 {
				t.Errorf("the embedded mapping: %d rows, embeds %+v; want 1 341 rows, 3 004 settings and 2 483 subscriptions", emb.M.rows, emb.M.embeds)
			}
			mid := 0
			for _, k := range emb.Kills {
				if k.EmbedRanges != ranges {
					t.Errorf("a kill's checkpoint has %d key ranges of user, want %d", k.EmbedRanges, ranges)
				}
				mid += k.MidEmbed
			}
			if len(emb.Kills) == 0 || mid == 0 {
				t.Errorf("the embedded job: %d kills, %d with users part done; want a resume from inside the users", len(emb.Kills), mid)
			}
			for _, r := range runs[:1] {
				for _, k := range r.Kills {
					if k.EmbedRanges != 0 {
						t.Errorf("the main mapping's kill counts %d ranges of entities with embeds", k.EmbedRanges)
					}
				}
			}
			got, err := b.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(emb.Table),
				Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "USER#1"}, "SK": &types.AttributeValueMemberS{Value: "USER#"}}})
			if err != nil {
				t.Fatal(err)
			}
			settings, ok := got.Item["settings"].(*types.AttributeValueMemberL)
			if !ok || len(settings.Value) == 0 {
				t.Errorf("user 1's item in the embedded job's table has no settings list: %v", got.Item)
			}
		})
	}
}

// deleteTables deletes the tables the bench made (their names start with
// b.names).
func deleteTables(t *testing.T, b *bench) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var start *string
	for {
		out, err := b.db.ListTables(ctx, &dynamodb.ListTablesInput{ExclusiveStartTableName: start})
		if err != nil {
			t.Logf("listing tables: %v", err)
			return
		}
		for _, name := range out.TableNames {
			if strings.HasPrefix(name, b.names+"_") {
				if _, err := b.db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
					t.Logf("deleting %s: %v", name, err)
				}
			}
		}
		if start = out.LastEvaluatedTableName; start == nil {
			return
		}
	}
}
