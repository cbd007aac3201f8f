package s3out

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Dir is a Store of a local directory (--to file:///dir/prefix/): the
// bucket is a directory (Location.Bucket, an absolute path) and a key a
// path below it, with slashes. It writes the same objects and manifest as
// S3 does, into files:
//
//   - an object or the manifest is written into a temporary file in the
//     bucket directory (.remodel-partial-*, outside the prefix: an
//     interrupted write leaves nothing under it that a listing, or an
//     aws s3 sync of the directory, would take for data), synced, then
//     renamed to its name, so that a file under the prefix is always a
//     whole object, as an S3 upload is;
//   - the prefix's directories are created as needed; the bucket
//     directory must exist (as a bucket must);
//   - an object's ETag is its modification time and size (a file written
//     again has another).
type Dir struct{}

// partial starts the names of Dir's temporary files.
const partial = ".remodel-partial-"

func (Dir) path(bucket, key string) string { return filepath.Join(bucket, filepath.FromSlash(key)) }

func (Dir) fail(what, p string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("local directory: %s %s: %w", what, p, err)
}

// bucket checks that the bucket directory exists.
func (d Dir) bucket(bucket string) error {
	st, err := os.Stat(bucket)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("local directory: %s does not exist (the directory that holds the prefix's directory must)", bucket)
	case err != nil:
		return d.fail("reading", bucket, err)
	case !st.IsDir():
		return fmt.Errorf("local directory: %s is not a directory", bucket)
	}
	return nil
}

func etag(st fs.FileInfo) string { return fmt.Sprintf("%x-%x", st.ModTime().UnixNano(), st.Size()) }

// List lists the files whose key starts with prefix: in the directory of
// the prefix up to its last slash, the entries whose name starts with the
// rest, and every file in the directories among them.
func (d Dir) List(ctx context.Context, bucket, prefix string) ([]Listed, error) {
	if err := d.bucket(bucket); err != nil {
		return nil, err
	}
	dirKey, name := "", prefix
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		dirKey, name = prefix[:i+1], prefix[i+1:]
	}
	entries, err := os.ReadDir(d.path(bucket, dirKey))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, d.fail("listing", d.path(bucket, dirKey), err)
	}
	var out []Listed
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), name) {
			continue
		}
		key := dirKey + e.Name()
		if !e.IsDir() {
			st, err := e.Info()
			if err != nil {
				return nil, d.fail("listing", d.path(bucket, key), err)
			}
			out = append(out, Listed{Key: key, Size: st.Size(), ETag: etag(st)})
			continue
		}
		err := filepath.WalkDir(d.path(bucket, key), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			st, err := e.Info()
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(bucket, p)
			if err != nil {
				return err
			}
			out = append(out, Listed{Key: filepath.ToSlash(rel), Size: st.Size(), ETag: etag(st)})
			return nil
		})
		if err != nil {
			return nil, d.fail("listing", d.path(bucket, key), err)
		}
	}
	return out, nil
}

// Upload copies body into the file of key, whole or not at all.
func (d Dir) Upload(ctx context.Context, bucket, key string, body io.Reader, size int64, _ string) (string, error) {
	p := d.path(bucket, key)
	if err := d.bucket(bucket); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", d.fail("writing", p, err)
	}
	f, err := os.CreateTemp(bucket, partial+"*")
	if err != nil {
		return "", d.fail("writing", p, err)
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	n, err := io.Copy(f, body)
	if err == nil && n != size {
		err = fmt.Errorf("%d bytes written, not %d", n, size)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", d.fail("writing", p, err)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := os.Rename(f.Name(), p); err != nil {
		return "", d.fail("writing", p, err)
	}
	done = true
	if dir, err := os.Open(filepath.Dir(p)); err == nil { // the rename, durable
		_ = dir.Sync()
		dir.Close()
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", d.fail("writing", p, err)
	}
	return etag(st), nil
}

// Put writes a small file, whole or not at all.
func (d Dir) Put(ctx context.Context, bucket, key string, body []byte, contentType string) error {
	_, err := d.Upload(ctx, bucket, key, strings.NewReader(string(body)), int64(len(body)), contentType)
	return err
}

// Create writes a small file, whole, only where there is none: written
// and synced under a temporary name, then hard-linked to its name, which
// fails when the name exists (ErrExists), however many processes try at
// once.
func (d Dir) Create(ctx context.Context, bucket, key string, body []byte, _ string) error {
	p := d.path(bucket, key)
	if err := d.bucket(bucket); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return d.fail("writing", p, err)
	}
	f, err := os.CreateTemp(bucket, partial+"*")
	if err != nil {
		return d.fail("writing", p, err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(body)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return d.fail("writing", p, err)
	}
	if err := os.Link(f.Name(), p); errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("local directory: %s: %w", p, ErrExists)
	} else if err != nil {
		return d.fail("writing", p, err)
	}
	if dir, err := os.Open(filepath.Dir(p)); err == nil { // the link, durable
		_ = dir.Sync()
		dir.Close()
	}
	return nil
}

// Delete removes the file; one that is not there is no error.
func (d Dir) Delete(_ context.Context, bucket, key string) error {
	p := d.path(bucket, key)
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return d.fail("deleting", p, err)
	}
	return nil
}

// Get reads a small file whole.
func (d Dir) Get(_ context.Context, bucket, key string) ([]byte, error) {
	b, err := os.ReadFile(d.path(bucket, key))
	if err != nil {
		return nil, d.fail("reading", d.path(bucket, key), err)
	}
	return b, nil
}

// Download copies the file into w and returns its size.
func (d Dir) Download(ctx context.Context, bucket, key string, w io.WriterAt) (int64, error) {
	p := d.path(bucket, key)
	f, err := os.Open(p)
	if err != nil {
		return 0, d.fail("reading", p, err)
	}
	defer f.Close()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n, err := io.Copy(io.NewOffsetWriter(w, 0), f)
	if err != nil {
		return 0, d.fail("reading", p, err)
	}
	return n, nil
}

// UnderPrefix says whether the file at path p (absolute) is under the
// prefix of the local directory l, or is one of its manifests (a name
// starting with the prefix, beside it): a file the route lists or writes.
func UnderPrefix(l Location, p string) bool {
	if !l.Dir || p == "" {
		return false
	}
	p = filepath.Clean(p)
	dir := filepath.Join(l.Bucket, filepath.FromSlash(strings.TrimSuffix(l.Prefix, "/")))
	rel, err := filepath.Rel(dir, p)
	if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return true
	}
	return filepath.Dir(p) == filepath.Dir(dir) && strings.HasPrefix(filepath.Base(p), filepath.Base(dir)+".")
}
