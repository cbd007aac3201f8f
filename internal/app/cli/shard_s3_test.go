package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestShardsS3KilledAndResumed is issue 19's sharded S3 route: three real
// remodel migrate --shard i/3 --to s3://... processes start at once
// against an in-process S3 (AWS_ENDPOINT_URL_S3); shard 2 (whose uploads
// the server holds back a second each, over the 14 or so objects of 200
// items its third of the rows makes, so that it cannot end before its
// first object settles, as it could with one object; not once it is
// killed) is killed with SIGKILL once its checkpoint counts
// settled rows, then run again with --resume, which uploads no object
// twice. verify --files then passes over the three shards' manifests; it
// fails (exit 1), naming what is wrong, with shard 2's manifest gone and
// with a stray object planted under the prefix. Both engines.
func TestShardsS3KilledAndResumed(t *testing.T) {
	awsEnv(t)
	bin := buildRemodel(t)
	backend := s3mem.New()
	if err := backend.CreateBucket("bkt"); err != nil {
		t.Fatal(err)
	}
	faker := gofakes3.New(backend).Server()
	var mu sync.Mutex
	puts := map[string]int{}
	var hold atomic.Bool // shard 2's uploads are held back until it is killed
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.URL.Path, "/bkt/")
		if r.Method == http.MethodPut && !r.URL.Query().Has("partNumber") || r.Method == http.MethodPost && r.URL.Query().Has("uploadId") {
			mu.Lock()
			puts[key]++
			mu.Unlock()
			if hold.Load() && strings.Contains(key, "/shard-2-of-3-") { // shard 2 slow enough to be killed mid-way
				// The body is read first, so that a client that dies while
				// the upload is held back is seen (the request's context
				// ends) and its object is not stored after it died.
				body, err := io.ReadAll(r.Body)
				if err != nil {
					return
				}
				select {
				case <-time.After(time.Second):
				case <-r.Context().Done():
				}
				if r.Context().Err() != nil {
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
			}
		}
		faker.ServeHTTP(w, r)
	}))
	defer srv.Close()
	t.Setenv("AWS_ENDPOINT_URL_S3", srv.URL)
	client := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")})
	for _, e := range testenv.Engines {
		t.Run(e.Name, func(t *testing.T) {
			hold.Store(true)
			dsn := e.Fresh(t)
			const nRows = 8000
			var b strings.Builder
			b.WriteString("CREATE TABLE orders (order_id INT PRIMARY KEY, customer_id INT NOT NULL, total INT NOT NULL, note VARCHAR(400));\n")
			b.WriteString("CREATE TABLE customers (customer_id INT PRIMARY KEY, name VARCHAR(40));\nINSERT INTO customers VALUES (1, 'one'), (2, 'two');\n")
			pad := strings.Repeat("x", 300)
			for i := 1; i <= nRows; i++ {
				if i%500 == 1 {
					b.WriteString("INSERT INTO orders VALUES ")
				} else {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "(%d, %d, %d, 'order %d %s')", i, i%2+1, i%997, i, pad)
				if i%500 == 0 || i == nRows {
					b.WriteString(";\n")
				}
			}
			e.Exec(t, dsn, b.String())
			m := writeFile(t, "sharded.yaml", shardedMapping)
			url := "s3://bkt/" + e.Name + "/orders/"
			dir := t.TempDir()
			args := func(i int) []string {
				return []string{"migrate", "--source", dsn, "-m", m, "--to", url, "--object-size", "1", "--object-items", "200",
					"--shard", strconv.Itoa(i) + "/3", "--ranges", "6", "--readers", "2", "--writers", "1", "--checkpoint-every", "100ms",
					"--checkpoint", filepath.Join(dir, "shard"+strconv.Itoa(i)+".json"), "--rejects", filepath.Join(dir, "rejects"+strconv.Itoa(i)+".jsonl")}
			}
			type proc struct {
				cmd            *exec.Cmd
				stdout, stderr bytes.Buffer
				done           chan error
			}
			var procs []*proc
			for i := 1; i <= 3; i++ {
				p := &proc{cmd: exec.Command(bin, args(i)...), done: make(chan error, 1)}
				p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
				if err := p.cmd.Start(); err != nil {
					t.Fatal(err)
				}
				go func() { p.done <- p.cmd.Wait() }()
				procs = append(procs, p)
			}
			ck := filepath.Join(dir, "shard2.json")
			for killed := false; !killed; {
				select {
				case err := <-procs[1].done:
					t.Fatalf("shard 2 ended (%v) before it was killed:\n%s\n%s", err, procs[1].stdout.String(), procs[1].stderr.String())
				case <-time.After(20 * time.Millisecond):
				}
				if settled(ck) > 0 {
					_ = procs[1].cmd.Process.Signal(syscall.SIGKILL)
					killed = true
					hold.Store(false) // its --resume below runs at full speed
				}
			}
			if err := <-procs[1].done; err == nil {
				t.Fatal("shard 2 exited 0 after SIGKILL")
			}
			for _, i := range []int{0, 2} {
				if err := <-procs[i].done; err != nil {
					t.Fatalf("shard %d/3: %v\n%s\n%s", i+1, err, procs[i].stdout.String(), procs[i].stderr.String())
				}
			}
			// remodel status: shard 2's checkpoint (killed) with its settled
			// rows; shards 1 and 3 finished, removed theirs and left their
			// finished records.
			code, sout, serr := remodel(t, "status", "--checkpoint", filepath.Join(dir, "shard*.json"), "--output", "json")
			var st struct {
				Checkpoints []struct {
					Shard string
					Split string `json:"split_digest"`
					Rows  int64  `json:"rows_settled"`
					Items int64  `json:"items_written"`
					S3    string
					Done  bool
				}
				Shards   int
				Missing  []string `json:"shards_without_checkpoint"`
				Finished []struct {
					Shard string
					Rows  int64 `json:"rows_read"`
				}
				Rows int64 `json:"rows_settled"`
				Done bool
			}
			if err := json.Unmarshal([]byte(sout), &st); err != nil {
				t.Fatalf("status --output json: exit %d, %v\n%s%s", code, err, sout, serr)
			}
			if code != 0 || len(st.Checkpoints) != 1 || st.Checkpoints[0].Shard != "2/3" || st.Checkpoints[0].Rows == 0 || st.Checkpoints[0].Items == 0 ||
				st.Checkpoints[0].S3 != url || st.Checkpoints[0].Done || st.Shards != 3 || len(st.Missing) != 0 || len(st.Finished) != 2 || st.Finished[0].Shard != "1/3" || st.Finished[1].Shard != "3/3" ||
				st.Rows != st.Checkpoints[0].Rows+st.Finished[0].Rows+st.Finished[1].Rows || st.Done {
				t.Errorf("status of the killed shard: exit %d, %+v\n%s%s", code, st, sout, serr)
			}
			code, sout, serr = remodel(t, "status", "--checkpoint", filepath.Join(dir, "shard*.json"))
			if code != 0 || !strings.Contains(sout, "2/3 ") || !strings.Contains(sout, ", split plan ") || !regexp.MustCompile(`(?m)^1/3 .* done .*\(finished `).MatchString(sout) || !regexp.MustCompile(`(?m)^total .*\(not done\)$`).MatchString(sout) {
				t.Errorf("status (text): exit %d\n%s%s", code, sout, serr)
			}

			out, err := exec.Command(bin, append(args(2), "--resume")...).CombinedOutput()
			if err != nil {
				t.Fatalf("shard 2/3 --resume: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "shard 2/3") || !strings.Contains(string(out), "orders.shard-2-of-3.remodel-manifest.json") {
				t.Errorf("the resumed shard's report:\n%s", out)
			}
			mu.Lock()
			for key, n := range puts {
				if n != 1 && strings.HasPrefix(key, e.Name+"/") && !strings.HasSuffix(key, ".remodel-claim.json") { // a claim is written again by its heartbeat
					t.Errorf("%s was put %d times", key, n)
				}
			}
			mu.Unlock()
			var read int64
			for i, text := range []string{procs[0].stdout.String(), string(out), procs[2].stdout.String()} {
				m := totalLine.FindStringSubmatch(text)
				if m == nil {
					t.Fatalf("shard %d/3's report has no total:\n%s", i+1, text)
				}
				n, _ := strconv.ParseInt(m[1], 10, 64)
				read += n
			}
			if read != nRows+2 {
				t.Errorf("the shards' reports count %d rows together, the source has %d", read, nRows+2)
			}
			if plan := sameSplit(t, procs[0].stdout.String(), string(out), procs[2].stdout.String()); plan == "" || !strings.HasPrefix(st.Checkpoints[0].Split, plan) {
				t.Errorf("the killed shard's checkpoint names split plan %q, the reports %q", st.Checkpoints[0].Split, plan)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			code, vout, verr := remodelCtx(t, ctx, "verify", "--source", dsn, "-m", m, "--files", url, "--output", "json")
			var rep struct {
				OK    bool
				Files *struct {
					Shards    int
					Manifests []string
					Items     int64
				}
			}
			if err := json.Unmarshal([]byte(vout), &rep); err != nil {
				t.Fatalf("verify --files --output json: %v\n%s%s", err, vout, verr)
			}
			if code != 0 || !rep.OK || rep.Files == nil || rep.Files.Shards != 3 || len(rep.Files.Manifests) != 3 || rep.Files.Items != nRows+2 {
				t.Fatalf("verify --files over the shards: exit %d, %+v\n%s%s", code, rep.Files, vout, verr)
			}

			manifest := e.Name + "/orders.shard-2-of-3.remodel-manifest.json"
			saved, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("bkt"), Key: aws.String(manifest)})
			if err != nil {
				t.Fatal(err)
			}
			var body bytes.Buffer
			_, _ = body.ReadFrom(saved.Body)
			saved.Body.Close()
			if _, err := client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("bkt"), Key: aws.String(manifest)}); err != nil {
				t.Fatal(err)
			}
			code, vout, verr = remodelCtx(t, ctx, "verify", "--source", dsn, "-m", m, "--files", url, "--skip-items")
			if code != 1 || !strings.Contains(vout, "shard 2/3 has no manifest (s3://bkt/"+manifest+")") {
				t.Errorf("verify --files without shard 2's manifest: exit %d\n%s%s", code, vout, verr)
			}
			if _, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String(manifest), Body: bytes.NewReader(body.Bytes())}); err != nil {
				t.Fatal(err)
			}

			stray := e.Name + "/orders/stray.json.gz"
			if _, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bkt"), Key: aws.String(stray), Body: strings.NewReader("not gzip")}); err != nil {
				t.Fatal(err)
			}
			code, vout, verr = remodelCtx(t, ctx, "verify", "--source", dsn, "-m", m, "--files", url)
			if code != 1 || !strings.Contains(vout, "object s3://bkt/"+stray+" is under the prefix but not in the manifest") {
				t.Errorf("verify --files with a stray object: exit %d\n%s%s", code, vout, verr)
			}
		})
	}
}
