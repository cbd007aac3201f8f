package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/testsupport/importstandin"
)

// The large-and-live route in the follow bench (step 5): remodel migrate
// --to s3://… --import --follow into a fresh table, the objects written to
// the in-process S3 (gofakes3), the import made by the stand-in of
// ImportTable in front of the bench's DynamoDB (importstandin: ImportTable
// cannot run against DynamoDB Local), which holds the import back while
// the bench makes a backlog of -follow-backlog changed rows on the source.
// Then the import completes, the follower starts on the imported table
// (its checkpoint says copy_done), and the catch-up is timed from that
// start to the first lag line counting every change of the backlog
// applied, behind 0 s: changes/s, beside the copy's items/s of step 1
// (target ≥ 0.8 ×, the follower's). remodel verify then compares every
// item of the imported and followed table.

// s3FollowReport is the route's figures.
type s3FollowReport struct {
	Backlog  phase // changed rows made while the import was held back
	CatchUp  phase // the backlog applied after the import
	Verified int64
}

// s3CatchUp is step 5.
func (fb *followBench) s3CatchUp(ctx context.Context, rep *followReport) error {
	fo := fb.o.follow
	table := fb.table + "_s3"
	ck := filepath.Join(fb.work, "s3follow.checkpoint.json")
	backend := s3mem.New()
	if err := backend.CreateBucket(s3Bucket); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	s3url, stopS3, err := serve(gofakes3.New(backend).Server())
	if err != nil {
		return err
	}
	defer stopS3()
	store, err := s3out.Connect(ctx, s3out.Config{Endpoint: s3url, Region: "us-east-1"})
	if err != nil {
		return err
	}
	imp, err := importstandin.Start(fb.o.endpoint, store)
	if err != nil {
		return err
	}
	defer imp.Close()
	imp.Hold = make(chan struct{})
	args := []string{"migrate", "--follow", "--source", fb.o.source, "-m", fb.o.mapping,
		"--endpoint", imp.URL, "--table", table, "--checkpoint", ck,
		"--to", "s3://" + s3Bucket + "/" + table + "/", "--import",
		"--readers", strconv.Itoa(fb.o.readers), "--writers", strconv.Itoa(fb.o.writers),
		"--rejects", filepath.Join(fb.work, "s3follow.rejects.jsonl"),
		"--progress", "json", "--progress-interval", "1s", "--output", "json",
		"--output-file", "json=" + filepath.Join(fb.work, "s3follow.report.json")}
	fb.step("large and live: migrate --to s3://… --import --follow into %s", table)
	f, err := startFollower(fb.o.remodel, args, []string{"AWS_ENDPOINT_URL_S3=" + s3url}, filepath.Join(fb.work, "s3follow.log"))
	if err != nil {
		return err
	}
	defer f.kill()
	if err := poll(ctx, fo.limit, "the import's start", func() bool { return imp.Started.Load() > 0 }); err != nil {
		return err
	}
	fb.step("large and live: the objects are written, the import held; making a backlog of %d changed rows", fo.backlog)
	t0 := time.Now()
	n := fb.load.runUntil(ctx, fo.backlog)
	if err := fb.workloadErr(); err != nil {
		return err
	}
	out := &s3FollowReport{Backlog: phase{Count: n, Wall: time.Since(t0)}}
	close(imp.Hold)
	if err := poll(ctx, fo.limit, "the follower's start after the import", func() bool { return checkpointCopyDone(ck) }); err != nil {
		return err
	}
	start := time.Now()
	cpu0 := f.cpu()
	done, _, err := f.wait(ctx, 0, fo.limit, fmt.Sprintf("the backlog's %d changes applied after the import", n), func(s statusLine) bool { return s.caughtUp(n) })
	if err != nil {
		return err
	}
	out.CatchUp = phase{Count: n, Wall: done.At.Sub(start), CPU: f.cpu() - cpu0, RSS: f.peakRSS()}
	fb.step("large and live: lag 0 %.1f s after the follower started (%.0f changes/s)", out.CatchUp.Wall.Seconds(), out.CatchUp.Rate())
	if err := f.stop(time.Minute); err != nil {
		return err
	}
	rows, err := fb.sourceRows(ctx)
	if err != nil {
		return err
	}
	v := verifyRun{bin: fb.o.remodel, source: fb.o.source, mapPth: fb.o.mapping, table: table, endpt: fb.o.endpoint, work: fb.work}
	vctx, cancel := context.WithTimeout(ctx, fo.limit)
	defer cancel()
	r, err := v.run(vctx, "remodel verify (the imported and followed table)")
	if err != nil {
		return err
	}
	if r.Items != rows {
		return fmt.Errorf("bench: follow: remodel verify of the imported table compared %d items, the source has %d rows", r.Items, rows)
	}
	out.Verified = rows
	rep.S3 = out
	return runCommand(ctx, time.Minute, fb.o.remodel, []string{"follow-cleanup", "--source", fb.o.source, "--checkpoint", ck},
		filepath.Join(fb.work, "s3follow.cleanup.log"))
}

// poll waits, within limit, until ok says so.
func poll(ctx context.Context, limit time.Duration, what string, ok func() bool) error {
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			return fmt.Errorf("bench: follow: %s did not come within %s", what, limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// checkpointCopyDone says whether the followed migration's checkpoint at
// ck says its copy (here: the import) is done.
func checkpointCopyDone(ck string) bool {
	var doc struct {
		Follow struct {
			CopyDone bool `json:"copy_done"`
		} `json:"follow"`
	}
	b, err := os.ReadFile(ck)
	return err == nil && json.Unmarshal(b, &doc) == nil && doc.Follow.CopyDone
}

// s3CatchUpRatio is the route's catch-up changes/s over the copy's items/s.
func (r *followReport) s3CatchUpRatio() float64 {
	if r.S3 == nil || r.Copy.Rate() == 0 {
		return 0
	}
	return r.S3.CatchUp.Rate() / r.Copy.Rate()
}
