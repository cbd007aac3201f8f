package migrate

import (
	"context"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
)

// TestDropLateObjects: before the manifest, an object under the prefix
// that the job's objects do not list is an upload an interrupted run's
// kill left in flight, stored after the resumed run listed the prefix:
// a resumed run deletes it (remodel's name) and reports it; the job's own
// objects stay. An object of another name, or any unlisted object in a run
// that is not resumed, stops the run and stays.
func TestDropLateObjects(t *testing.T) {
	ctx := context.Background()
	put := func(t *testing.T, dir, key string) {
		t.Helper()
		if err := (s3out.Dir{}).Put(ctx, dir, key, []byte("{}\n"), "application/json"); err != nil {
			t.Fatal(err)
		}
	}
	keys := func(t *testing.T, dir string) string {
		t.Helper()
		listed, err := (s3out.Dir{}).List(ctx, dir, "p/")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range listed {
			out = append(out, l.Key)
		}
		return strings.Join(out, " ")
	}
	const own, late = "p/0a1b2c3d-000001.json.gz", "p/9f8e7d6c-000002.json.gz"
	for _, c := range []struct {
		name    string
		resume  bool
		extra   string
		deleted bool
		err     string
	}{
		{name: "late upload of an interrupted run", resume: true, extra: late, deleted: true},
		{name: "another name", resume: true, extra: "p/notes.txt", err: "is not one of this job's objects"},
		{name: "not resumed", extra: late, err: "is not one of this job's objects"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			put(t, dir, own)
			put(t, dir, c.extra)
			o := Options{S3: s3out.Dir{}, To: &s3out.Location{Bucket: dir, Prefix: "p/", Dir: true}, Compression: s3out.Gzip, Resume: c.resume}
			rep := &Report{S3: &S3Report{objects: []s3Object{{Key: own}}}}
			err := dropLateObjects(ctx, o, rep)
			switch {
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("dropLateObjects: %v, want an error saying %q", err, c.err)
			case c.err == "" && err != nil:
				t.Fatal(err)
			}
			want := own + " " + c.extra
			if c.deleted {
				want = own
				if len(rep.S3.LateDeleted) != 1 || !strings.HasSuffix(rep.S3.LateDeleted[0], late) {
					t.Errorf("reported deleted: %v, want %s", rep.S3.LateDeleted, late)
				}
			}
			if got := keys(t, dir); got != want {
				t.Errorf("under the prefix: %s, want %s", got, want)
			}
		})
	}
}
