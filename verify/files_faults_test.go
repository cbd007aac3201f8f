package verify_test

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/testsupport/golden"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/verify"
)

// dumpProblems renders every check's counters and problems (all of them,
// in Problem order) as lines, for a golden file. The files check's damaged
// objects are left out, and its problems not counted: which objects a
// fault is planted in changes from one export to the next.
func dumpProblems(rep *verify.Report) string {
	var b strings.Builder
	list := func(name string, ps *verify.Problems) {
		ps.Sort()
		fmt.Fprintf(&b, "%s: %d problems, %d listed\n", name, ps.Total, len(ps.List))
		for _, p := range ps.List {
			fmt.Fprintf(&b, "  %s | %s | %s | %s | %s | %s | %s\n    %s\n", p.Kind, p.Entity, p.Key, p.SourceKey, p.Attribute, p.Want, p.Got, p.Message)
		}
	}
	if rep.Files != nil {
		fmt.Fprintf(&b, "files: %d objects read, %d items\n", rep.Files.Read, rep.Files.Items)
		rep.Files.Problems.Sort()
		for _, p := range rep.Files.Problems.List {
			if p.Kind != verify.KindObjectDamaged {
				fmt.Fprintf(&b, "  %s | %s\n    %s\n", p.Kind, p.Key, p.Message)
			}
		}
	}
	for i := range rep.Counts {
		c := &rep.Counts[i]
		fmt.Fprintf(&b, "count %s: source %d, rejected %d, items %d, ok %v\n", c.Entity, c.Source, c.Rejected, c.Items, c.OK)
		list("count "+c.Entity, &c.Problems)
	}
	for i := range rep.Items {
		ic := &rep.Items[i]
		fmt.Fprintf(&b, "items %s: rows %d, sampled %d, compared %d, missing %d, different %d, rejected %d, ok %v\n",
			ic.Entity, ic.Rows, ic.Sampled, ic.Compared, ic.Missing, ic.Different, ic.Rejected, ic.OK)
		list("items "+ic.Entity, &ic.Problems)
	}
	list("stray", &rep.Stray)
	fmt.Fprintf(&b, "ok %v\n", rep.OK)
	return b.String()
}

// TestFilesFaults plants a fault of every kind the item check of files
// names — a missing item, a different one, a key twice across objects, a
// stray of an entity and one of no entity, an accepted reject whose item
// is there, rows that render another row's key — and compares everything
// the report says (counters, every problem, in Problem order) with a
// golden file; then the same with many different items and a cap of 2
// problems a check. Each check runs with the buckets joined as they are
// and split again (Options.JoinLimit), to the same golden file. The faults are planted by key (which object holds an
// item changes from one export to the next). The golden files were
// written by the check that held every item in memory, before the items
// went to disk.
func TestFilesFaults(t *testing.T) {
	for i, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel() // each its own database, S3 and golden files
			fx := exported(t, eng.Name, eng.Fresh, []s3out.Compression{s3out.Gzip, s3out.Zstd}[i%2])
			ea, tk := fx.plan.Table.EntityAttr, fx.plan.Table.KeyString
			job, _, _ := strings.Cut(path.Base(fx.keys[0]), "-")
			// The job's id and the number of objects are masked: how
			// migrate --to's writers share the items out over objects
			// depends on timing (47 or 48 here).
			mask := func(rep *verify.Report) []byte {
				out := regexp.MustCompile(job+`-\d+`).ReplaceAllString(dumpProblems(rep), "JOB-N")
				return []byte(regexp.MustCompile(`\d+ objects read`).ReplaceAllString(out, "N objects read"))
			}
			// Each check runs twice: as it is, and with every bucket (53
			// items on average) split again before the join (a join limit
			// of 8): the report must be the same.
			check := func(name string, o verify.Options) {
				t.Helper()
				for _, limit := range []int{0, 8} {
					o.JoinLimit = limit
					golden.Check(t, name, mask(runFailing(t, o)))
				}
			}
			const changed, removed, duplicated = "PK=USER#1 SK=PERSONAL#news#alerts", "PK=USER#2 SK=PERSONAL#newsletter#alerts", "PK=USER#6 SK=PERSONAL#news#layout"

			// One item changed, one removed, one copied into the object of
			// the changed one, and two extra items there (one of an entity,
			// one of none); the row of a fourth is accepted as rejected.
			restore := fx.plant(t, func(items []mapping.Item) []mapping.Item {
				var out, add []mapping.Item
				for _, it := range items {
					switch tk(it) {
					case changed:
						extra, noEntity := cloneItem(it), cloneItem(it)
						extra["SK"] = &types.AttributeValueMemberS{Value: "EXTRA#1"}
						noEntity["SK"] = &types.AttributeValueMemberS{Value: "EXTRA#2"}
						noEntity[ea] = &types.AttributeValueMemberS{Value: "nosuch"}
						it = cloneItem(it)
						it[firstAttr(it, ea)] = &types.AttributeValueMemberS{Value: "tampered"}
						add = append(add, extra, noEntity, fx.find(t, duplicated))
					case removed:
						continue
					}
					out = append(out, it)
				}
				return append(out, add...)
			})
			rejects := filepath.Join(t.TempDir(), "rejects.jsonl")
			line := `{"entity": "personal", "row": "user_id=8, service=news, setting_type=alerts", "reason": "planted"}` + "\n"
			if err := os.WriteFile(rejects, []byte(line), 0o644); err != nil {
				t.Fatal(err)
			}
			rj, err := verify.ReadRejects(rejects, fx.plan)
			if err != nil {
				t.Fatal(err)
			}
			rj.File = "rejects.jsonl" // the same name in every run, for the golden file
			o := fx.o
			o.Rejects = rj
			check("files_faults_"+eng.Name+".txt", o)
			restore()

			// Every service row renders the key of the service "mail": the
			// first claims its item, the others render another row's key.
			text := strings.Replace(exampleMapping(t), `pk: "SERVICE#{service}"`, `pk: "SERVICE#mail"`, 1)
			if !strings.Contains(text, `SERVICE#mail"`) {
				t.Fatal("the example mapping has no service pk to replace")
			}
			o = fx.o
			o.Plan = compile(t, fx.o.Source, text)
			check("files_faults_dupkey_"+eng.Name+".txt", o)

			// Every item whose partition key starts with USER#1 or SERVICE#
			// differs by one attribute, with a cap of 2 problems a check:
			// the first two in Problem order are listed, every one is
			// counted.
			restore = fx.plant(t, func(items []mapping.Item) []mapping.Item {
				for j, it := range items {
					if k := tk(it); strings.HasPrefix(k, "PK=USER#1") || strings.HasPrefix(k, "PK=SERVICE#") {
						items[j] = cloneItem(it)
						items[j][firstAttr(it, ea)] = &types.AttributeValueMemberS{Value: "tampered"}
					}
				}
				return items
			})
			defer restore()
			o = fx.o
			o.MaxProblems = 2
			check("files_faults_capped_"+eng.Name+".txt", o)
		})
	}
}

// plant rewrites every object as change makes it (the objects it leaves
// as they were are not written) and returns what puts them back.
func (fx *filesFixture) plant(t *testing.T, change func([]mapping.Item) []mapping.Item) (restore func()) {
	t.Helper()
	origs := map[string][]byte{}
	for _, key := range fx.keys {
		orig := fx.get(t, key)
		b := fx.encode(t, fx.items(t, orig))
		if after := fx.encode(t, change(fx.items(t, orig))); !bytes.Equal(after, b) {
			origs[key] = orig
			fx.put(t, key, after)
		}
	}
	return func() {
		for key, orig := range origs {
			fx.put(t, key, orig)
		}
	}
}

// find is the item of the key in the objects.
func (fx *filesFixture) find(t *testing.T, key string) mapping.Item {
	t.Helper()
	for _, k := range fx.keys {
		for _, it := range fx.items(t, fx.get(t, k)) {
			if fx.plan.Table.KeyString(it) == key {
				return it
			}
		}
	}
	t.Fatalf("no item %s in the objects", key)
	return nil
}

func runFailing(t *testing.T, o verify.Options) *verify.Report {
	t.Helper()
	rep := run(t, o)
	if rep.OK {
		t.Fatalf("verify passed:\n%s", text(rep))
	}
	return rep
}

// firstAttr is the first attribute of the item, by name, that is no key
// and not the entity attribute.
func firstAttr(it mapping.Item, entityAttr string) string {
	best := ""
	for n := range it {
		if n != "PK" && n != "SK" && n != entityAttr && (best == "" || n < best) {
			best = n
		}
	}
	return best
}

func cloneItem(it mapping.Item) mapping.Item {
	out := mapping.Item{}
	for n, v := range it {
		out[n] = v
	}
	return out
}
