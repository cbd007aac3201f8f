// Package s3out writes and reads the objects of DynamoDB's import from S3
// (ImportTable): where they go (Location, an s3:// URL), one object being
// written (Object: DynamoDB JSON lines compressed into a temporary file,
// with its sizes and SHA-256), and the S3 calls made for them (Store:
// uploads and downloads through the SDK's transfer manager, listings and
// the manifest), each with a deadline.
package s3out

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Location is an import prefix: every object under it is an ImportTable
// source object. Prefix is never empty and ends with a slash.
type Location struct {
	Bucket string
	Prefix string
}

// Parse reads s3://bucket/prefix/. A prefix without a trailing slash gets
// one: ImportTable reads every object whose key starts with the prefix,
// and the manifest beside it (prefix.remodel-manifest.json) must not. An
// empty prefix is refused: the whole bucket would be the import's source.
func Parse(raw string) (Location, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "s3" || u.Host == "" {
		return Location{}, fmt.Errorf("%q is not an s3://bucket/prefix/ URL", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return Location{}, fmt.Errorf("%q: an s3:// URL has a bucket and a prefix only", raw)
	}
	prefix := strings.TrimPrefix(u.Path, "/")
	if strings.Trim(prefix, "/") == "" {
		return Location{}, fmt.Errorf("%q has no prefix: ImportTable reads every object under the prefix as data, and the manifest lives beside it; give one, e.g. s3://%s/orders/", raw, u.Host)
	}
	if strings.Contains(prefix, "//") {
		return Location{}, fmt.Errorf("%q: the prefix has an empty path segment", raw)
	}
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return Location{Bucket: u.Host, Prefix: prefix}, nil
}

func (l Location) String() string { return "s3://" + l.Bucket + "/" + l.Prefix }

// ManifestKey is the manifest's key: beside the prefix, not under it
// (orders/ has orders.remodel-manifest.json), so that ImportTable does not
// read it as data.
func (l Location) ManifestKey() string {
	return strings.TrimSuffix(l.Prefix, "/") + ".remodel-manifest.json"
}

// ManifestURL is the manifest's s3:// URL.
func (l Location) ManifestURL() string { return "s3://" + l.Bucket + "/" + l.ManifestKey() }

// ShardManifestKey is the manifest's key of shard (as "shard-2-of-3") of
// a sharded job (migrate --shard i/n --to): beside the prefix too
// (orders/ has orders.shard-2-of-3.remodel-manifest.json).
func (l Location) ShardManifestKey(shard string) string {
	return strings.TrimSuffix(l.Prefix, "/") + "." + shard + ".remodel-manifest.json"
}

// ShardManifestURL is ShardManifestKey's s3:// URL.
func (l Location) ShardManifestURL(shard string) string {
	return "s3://" + l.Bucket + "/" + l.ShardManifestKey(shard)
}

// ManifestsPrefix is what the keys of the job's manifests start with (the
// unsharded one and the shards'): the prefix without its slash, and a dot.
func (l Location) ManifestsPrefix() string {
	return strings.TrimSuffix(l.Prefix, "/") + "."
}

// The names of a sharded job's objects (under the prefix: the shard, the
// run's id and the object's number) and manifests (after ManifestsPrefix).
var (
	shardObject   = regexp.MustCompile(`^shard-([0-9]+)-of-([0-9]+)-[0-9a-f]{8}-[0-9]{6,}\.json\.(gz|zst)$`)
	shardManifest = regexp.MustCompile(`^shard-([0-9]+)-of-([0-9]+)\.remodel-manifest\.json$`)
)

// ShardOfObject is the shard (i of n, 1-based) whose object has the name
// (the key after the prefix); ok is false for a name no shard gives.
func ShardOfObject(name string) (i, n int, ok bool) { return shardOf(shardObject, name) }

// ShardOfManifest is the shard (i of n) whose manifest has the name (the
// key after ManifestsPrefix); ok is false for any other name.
func ShardOfManifest(name string) (i, n int, ok bool) { return shardOf(shardManifest, name) }

func shardOf(re *regexp.Regexp, name string) (i, n int, ok bool) {
	m := re.FindStringSubmatch(name)
	if m == nil {
		return 0, 0, false
	}
	i, err1 := strconv.Atoi(m[1])
	n, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, false
	}
	return i, n, true
}
