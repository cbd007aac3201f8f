package s3out

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compression is how the objects are compressed: gzip, zstd or none, the
// three ImportTable and StartBulkPutItems read (InputCompressionType GZIP,
// ZSTD, NONE).
type Compression string

const (
	Gzip Compression = "gzip"
	Zstd Compression = "zstd"
	// None writes the DynamoDB JSON lines as they are: larger objects, no
	// CPU spent compressing.
	None Compression = "none"
)

// ParseCompression reads gzip, zstd or none.
func ParseCompression(s string) (Compression, error) {
	switch Compression(s) {
	case Gzip, Zstd, None:
		return Compression(s), nil
	}
	return "", fmt.Errorf("compression %q: gzip, zstd or none", s)
}

// CompressionOfImportType is the compression of an InputCompressionType
// (a manifest's input_compression_type): GZIP, ZSTD or NONE, in any case.
func CompressionOfImportType(s string) (Compression, bool) {
	switch strings.ToUpper(s) {
	case "GZIP":
		return Gzip, true
	case "ZSTD":
		return Zstd, true
	case "NONE":
		return None, true
	}
	return "", false
}

// ImportType is ImportTable's (and StartBulkPutItems') InputCompressionType
// for c.
func (c Compression) ImportType() string {
	switch c {
	case Zstd:
		return "ZSTD"
	case None:
		return "NONE"
	}
	return "GZIP"
}

// Ext is the objects' name ending: .json.gz, .json.zst or .json.
func (c Compression) Ext() string {
	switch c {
	case Zstd:
		return ".json.zst"
	case None:
		return ".json"
	}
	return ".json.gz"
}

// NewReader decompresses r.
func (c Compression) NewReader(r io.Reader) (io.ReadCloser, error) {
	if c == None {
		return io.NopCloser(r), nil
	}
	if c == Zstd {
		d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		return d.IOReadCloser(), nil
	}
	return gzip.NewReader(r)
}

// ZstdWindow is the window of the zstd objects: how far back a match may
// reach, and so about what each open object's encoder holds (its history
// is the window and one block). zstd's default at SpeedDefault is 8 MiB,
// which made a 16 MiB history per open object (one per writer: 128 MiB
// with 8 writers, and the garbage collector then ran without pause under
// migrate's memory limit); the lines of one object are alike within far
// less than a MiB, so the objects are hardly larger (ImportTable, like any
// zstd reader, takes any window up to 8 MiB).
const ZstdWindow = 1 << 20

// GzipLevel is the gzip objects' compression level, of
// github.com/klauspost/compress/gzip (the standard format, read by any gzip
// reader): at level 6 it took about a third of the CPU of the standard
// library's default level on the objects' lines, for objects about 7%
// larger.
const GzipLevel = 6

// Object is one object being written: lines compressed into a temporary
// file, unlinked as soon as it is created (a killed run leaves nothing on
// disk), with the SHA-256 of the compressed bytes.
type Object struct {
	f     *os.File
	buf   *bufio.Writer
	sum   hash.Hash
	enc   io.WriteCloser
	Lines int64 // lines written
	Raw   int64 // bytes written, before compression
	Size  int64 // the compressed bytes, once Finish is done
	// SHA256 is the hex SHA-256 of the compressed bytes, once Finish is done.
	SHA256 string
}

// counter counts the bytes written to the file.
type tee struct {
	w io.Writer
	h hash.Hash
	n *int64
}

func (t tee) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.h.Write(p[:n])
	*t.n += int64(n)
	return n, err
}

// NewObject starts an object in a temporary file in dir ("": the system's).
func NewObject(dir string, c Compression) (*Object, error) {
	f, err := os.CreateTemp(dir, "remodel-object-*")
	if err != nil {
		return nil, fmt.Errorf("s3out: a temporary file for an object: %w", err)
	}
	os.Remove(f.Name()) // read and written through f only
	o := &Object{f: f, buf: bufio.NewWriterSize(f, 256<<10), sum: sha256.New()}
	out := tee{w: o.buf, h: o.sum, n: &o.Size}
	switch c {
	case None:
		o.enc = nopCloser{out}
	case Zstd:
		enc, err := zstd.NewWriter(out, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithWindowSize(ZstdWindow), zstd.WithLowerEncoderMem(true))
		if err != nil {
			f.Close()
			return nil, err
		}
		o.enc = enc
	default:
		enc, err := kgzip.NewWriterLevel(out, GzipLevel)
		if err != nil {
			f.Close()
			return nil, err
		}
		o.enc = enc
	}
	return o, nil
}

// nopCloser is the "compressor" of an uncompressed object.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// Write adds lines (n of them, each ending with a newline).
func (o *Object) Write(lines []byte, n int) error {
	if _, err := o.enc.Write(lines); err != nil {
		return fmt.Errorf("s3out: writing an object's temporary file: %w", err)
	}
	o.Lines += int64(n)
	o.Raw += int64(len(lines))
	return nil
}

// Finish ends the compressed stream and rewinds the file for Body; Size
// and SHA256 are then set.
func (o *Object) Finish() error {
	if err := o.enc.Close(); err != nil {
		return fmt.Errorf("s3out: compressing an object: %w", err)
	}
	if err := o.buf.Flush(); err != nil {
		return fmt.Errorf("s3out: writing an object's temporary file: %w", err)
	}
	o.SHA256 = hex.EncodeToString(o.sum.Sum(nil))
	if _, err := o.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("s3out: rewinding an object's temporary file: %w", err)
	}
	return nil
}

// Body is the compressed object, once Finish is done.
func (o *Object) Body() io.ReadSeeker { return o.f }

// Close frees the temporary file.
func (o *Object) Close() error { return o.f.Close() }
