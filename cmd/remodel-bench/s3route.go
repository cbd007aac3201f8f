package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/migrate"
)

// The S3 import route (migrate --to): the built remodel writing the same
// rows as ImportTable's objects, to a local directory (--to file://) and to
// an in-process S3 (gofakes3 on a loopback port, reached through
// AWS_ENDPOINT_URL_S3 with path-style addressing, as an S3-compatible
// server is), beside the null sink of the same round: nothing throttles
// this route but remodel itself, so its items/s are held to
// s3Target × the null sink's.
//
// The compression's own CPU is measured apart, in the bench process: the
// objects of the directory run are read back, decompressed (not timed) and
// compressed again with s3out.NewObject, the code and settings remodel's
// sink uses (s3out.GzipLevel, zstd's SpeedDefault with s3out.ZstdWindow, one goroutine),
// timing the process's CPU around the compression alone. remodel has no
// option to write uncompressed objects (ImportTable's S3 route takes them,
// but remodel does not), so no run without compression is made.

// s3Target is the share of the null sink's items/s the route must reach
// (issue 19 §1).
const s3Target = 0.7

// s3Bucket is the in-process S3's bucket.
const s3Bucket = "remodel-bench"

// s3Measure is one run of the route.
type s3Measure struct {
	name string
	dir  bool // a local directory; else the in-process S3
	comp s3out.Compression
}

var s3Measures = []s3Measure{
	{"remodel -> objects (local dir, gzip)", true, s3out.Gzip},
	{"remodel -> in-process S3 (gzip)", false, s3out.Gzip},
	{"remodel -> objects (local dir, zstd)", true, s3out.Zstd},
}

// s3Result is the route's figures: one result per s3Measures entry, and
// the CPU s/M of the compression alone, per compression.
type s3Result struct {
	// checked is the null sink with the key collision check on
	// (--key-check always), as the route always runs it: the route's own
	// cost (encoding, compression, upload) is its distance from this.
	checked result
	runs    []result
	comp    map[s3out.Compression]float64
	// serverCPU is the bench process's CPU during the in-process S3 run
	// (gofakes3 serving it).
	serverCPU time.Duration
}

// s3Round measures the route once (one round).
func (b *bench) s3Round(ctx context.Context) (s3Result, error) {
	out := s3Result{comp: map[s3out.Compression]float64{}}
	b.step("%sremodel into the null sink with the key check on", b.prefix())
	m := b.nullRun()
	m.extra = append(append([]string{}, m.extra...), "--key-check", "always")
	checked, rep, err := m.run(ctx, "remodel -> null sink, key check on")
	if err != nil {
		return out, err
	}
	if err := checkReport(rep, b.total); err != nil {
		return out, err
	}
	if rep.KeyCheck == nil {
		return out, fmt.Errorf("bench: the null sink run with --key-check always reports no key check")
	}
	out.checked = checked
	for _, m := range s3Measures {
		b.step("%s%s", b.prefix(), m.name)
		r, _, dir, cpu, err := b.s3Run(ctx, m)
		if err != nil {
			return out, err
		}
		out.runs = append(out.runs, r)
		if !m.dir {
			out.serverCPU = cpu
		}
		if dir != "" {
			if _, done := out.comp[m.comp]; !done {
				perM, err := compressionCPU(dir, m.comp, b.m.work)
				if err != nil {
					return out, err
				}
				out.comp[m.comp] = perM
			}
			os.RemoveAll(dir)
		}
	}
	return out, nil
}

// s3Run runs remodel migrate --to once and returns its figures and report;
// for a directory also the directory of the objects (removed by the
// caller), for the in-process S3 the bench process's CPU while it served.
func (b *bench) s3Run(ctx context.Context, m s3Measure) (result, *migrate.Report, string, time.Duration, error) {
	b.seq++
	run := b.m
	run.table = fmt.Sprintf("bench_s3_%d", b.seq)
	run.endpt = b.o.endpoint // not contacted: --to writes no table
	var url, dir string
	var cpu0 time.Duration
	if m.dir {
		dir = filepath.Join(b.m.work, run.table)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return result{}, nil, "", 0, fmt.Errorf("bench: %w", err)
		}
		url = "file://" + dir + "/items/"
	} else {
		backend := s3mem.New()
		if err := backend.CreateBucket(s3Bucket); err != nil {
			return result{}, nil, "", 0, fmt.Errorf("bench: the in-process S3: %w", err)
		}
		endpoint, stop, err := serve(gofakes3.New(backend).Server())
		if err != nil {
			return result{}, nil, "", 0, err
		}
		defer stop()
		run.env = append(run.env, "AWS_ENDPOINT_URL_S3="+endpoint)
		url = "s3://" + s3Bucket + "/" + run.table + "/"
		cpu0 = selfCPU()
	}
	run.extra = append(append([]string{}, run.extra...), "--to", url, "--compression", string(m.comp))
	r, rep, err := run.run(ctx, m.name)
	var cpu time.Duration
	if !m.dir {
		cpu = selfCPU() - cpu0
	}
	if err != nil {
		return result{}, nil, "", 0, err
	}
	if err := checkReport(rep, b.total); err != nil {
		return result{}, nil, "", 0, err
	}
	if rep.S3 == nil || rep.S3.Objects == 0 || rep.S3.Manifest == "" {
		return result{}, nil, "", 0, fmt.Errorf("bench: %s: remodel wrote no objects or no manifest (%+v)", m.name, rep.S3)
	}
	return r, rep, dir, cpu, nil
}

// compressionCPU compresses again, in this process, the DynamoDB JSON the
// objects under dir hold, with remodel's own object writer, and returns
// the CPU seconds per million items of the compression alone.
func compressionCPU(dir string, comp s3out.Compression, tmp string) (float64, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, comp.Ext()) {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("bench: %w", err)
	}
	var cpu time.Duration
	var items int64
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			return 0, fmt.Errorf("bench: %w", err)
		}
		zr, err := comp.NewReader(f)
		if err != nil {
			f.Close()
			return 0, fmt.Errorf("bench: %s: %w", p, err)
		}
		raw, err := io.ReadAll(zr)
		zr.Close()
		f.Close()
		if err != nil {
			return 0, fmt.Errorf("bench: %s: %w", p, err)
		}
		n := bytes.Count(raw, []byte{'\n'})
		obj, err := s3out.NewObject(tmp, comp)
		if err != nil {
			return 0, err
		}
		c0 := selfCPU()
		err = obj.Write(raw, n)
		if err == nil {
			err = obj.Finish()
		}
		cpu += selfCPU() - c0
		obj.Close()
		if err != nil {
			return 0, err
		}
		items += int64(n)
	}
	if items == 0 {
		return 0, fmt.Errorf("bench: no items in the objects under %s", dir)
	}
	return cpu.Seconds() * 1e6 / float64(items), nil
}

// medianS3 is the median round of each run of the route.
func medianS3(rounds []s3Result) s3Result {
	if len(rounds) == 0 {
		return s3Result{}
	}
	out := s3Result{comp: map[s3out.Compression]float64{}}
	var checked []result
	for _, r := range rounds {
		checked = append(checked, r.checked)
	}
	out.checked = median(checked)
	for i := range s3Measures {
		var rs []result
		for _, r := range rounds {
			rs = append(rs, r.runs[i])
		}
		out.runs = append(out.runs, median(rs))
	}
	var cpus []time.Duration
	for _, r := range rounds {
		cpus = append(cpus, r.serverCPU)
	}
	out.serverCPU = medianDuration(cpus)
	for c := range rounds[0].comp {
		var ds []time.Duration
		for _, r := range rounds {
			ds = append(ds, time.Duration(r.comp[c]*float64(time.Second)))
		}
		out.comp[c] = medianDuration(ds).Seconds()
	}
	return out
}

// writeS3 prints the route's rows beside the null sink's.
func writeS3(w io.Writer, s s3Result, null result) {
	if len(s.runs) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  S3 import route (migrate --to), beside the null sink of the same rounds; target >= %.2f x the items/s of the null sink\n", s3Target)
	fmt.Fprintln(w, "  with the key check on, as the route runs it (/ null kc); / null: the null sink as -key-check says")
	fmt.Fprintf(w, "  %-38s %10s %9s %8s %6s %8s %6s %11s\n", "measurement", "items/s", "wall", "CPU s/M", "cores", "max RSS", "/ null", "/ null kc")
	rows := append([]result{null, s.checked}, s.runs...)
	for i, r := range rows {
		ratio, checked := "-", "-"
		if i > 0 && null.Rate() > 0 {
			ratio = fmt.Sprintf("%.2f", r.Rate()/null.Rate())
		}
		if i > 1 && s.checked.Rate() > 0 {
			v := r.Rate() / s.checked.Rate()
			mark := "ok"
			if v < s3Target {
				mark = "BELOW"
			}
			checked = fmt.Sprintf("%.2f %s", v, mark)
		}
		fmt.Fprintf(w, "  %-38s %10s %9s %8.1f %6.2f %8s %6s %11s\n", r.Name, thousands(r.Rate()), seconds(r.Wall), r.CPUPerMillion(), r.Cores(), mib(r.MaxRSS), ratio, checked)
	}
	var parts []string
	for _, c := range []s3out.Compression{s3out.Gzip, s3out.Zstd} {
		if v, ok := s.comp[c]; ok {
			parts = append(parts, fmt.Sprintf("%s %.1f", c, v))
		}
	}
	fmt.Fprintf(w, "  Compression alone, CPU s/M (included in the rows above): %s; measured in the bench process by\n", strings.Join(parts, ", "))
	fmt.Fprintln(w, "  compressing again the JSON lines of the local-dir run's objects with s3out.NewObject, remodel's own writer.")
	fmt.Fprintln(w, "  The route always runs the key collision check (ImportTable keeps one of two items with one key); the null")
	fmt.Fprintln(w, "  sink runs it as -key-check says, and with --key-check always in its second row. Each route row is one")
	fmt.Fprintln(w, "  remodel process, objects to the end (manifest included).")
	if s.serverCPU > 0 {
		fmt.Fprintf(w, "  The in-process S3 (gofakes3, in the bench process) used %.2f CPU s besides.\n", s.serverCPU.Seconds())
	}
}
