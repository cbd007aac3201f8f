// Package s3out writes and reads the objects of DynamoDB's import from S3
// (ImportTable): where they go (Location, an s3:// URL or a file:// one of
// a local directory), one object being written (Object: DynamoDB JSON
// lines compressed into a temporary file, with its sizes and SHA-256), and
// the calls made for them (Store: uploads, listings, the manifest and
// downloads), made by S3 (the SDK's transfer manager, each request with a
// deadline) or by Dir (files in a local directory).
package s3out

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// Location is an import prefix: every object under it is an ImportTable
// source object. Prefix is never empty and ends with a slash.
//
// With Dir set, the objects go into a local directory (file:///dir/prefix/):
// Bucket is then the absolute path of the directory that holds the prefix's
// directory (/dir), and the keys are paths below it, as in a bucket
// (prefix/name.json.gz, prefix.remodel-manifest.json beside the prefix).
type Location struct {
	Bucket string
	Prefix string
	Dir    bool
}

// Parse reads s3://bucket/prefix/. A prefix without a trailing slash gets
// one: ImportTable reads every object whose key starts with the prefix,
// and the manifest beside it (prefix.remodel-manifest.json) must not. An
// empty prefix is refused: the whole bucket would be the import's source.
//
// file:///abs/dir/prefix/ is a local directory instead (an absolute path;
// the host empty or localhost): the objects go into /abs/dir/prefix/ and
// the manifest beside it, /abs/dir/prefix.remodel-manifest.json.
func Parse(raw string) (Location, error) {
	if strings.HasPrefix(raw, "file:") {
		return parseFile(raw)
	}
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

// parseFile reads file:///abs/dir/prefix/.
func parseFile(raw string) (Location, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "file" || u.Opaque != "" || (u.Host != "" && u.Host != "localhost") || !strings.HasPrefix(u.Path, "/") {
		return Location{}, fmt.Errorf("%q is not a file:///absolute/dir/prefix/ URL (three slashes: an absolute path)", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return Location{}, fmt.Errorf("%q: a file:// URL has a path only", raw)
	}
	p := u.Path
	if strings.Contains(p, "//") {
		return Location{}, fmt.Errorf("%q: the path has an empty segment", raw)
	}
	clean := path.Clean(p)
	if clean != strings.TrimSuffix(p, "/") {
		return Location{}, fmt.Errorf("%q: the path has . or .. segments; give it clean", raw)
	}
	if clean == "/" {
		return Location{}, fmt.Errorf("%q has no prefix directory: the objects go into a directory of their own and the manifest beside it; give one, e.g. file:///tmp/orders/", raw)
	}
	return Location{Bucket: path.Dir(clean), Prefix: path.Base(clean) + "/", Dir: true}, nil
}

func (l Location) String() string { return l.URL(l.Prefix) }

// URL is the URL of the object (or manifest) with the key.
func (l Location) URL(key string) string {
	if l.Dir {
		u := "file://" + path.Join(l.Bucket, key)
		if strings.HasSuffix(key, "/") {
			u += "/"
		}
		return u
	}
	return "s3://" + l.Bucket + "/" + key
}

// ManifestKey is the manifest's key: beside the prefix, not under it
// (orders/ has orders.remodel-manifest.json), so that ImportTable does not
// read it as data.
func (l Location) ManifestKey() string {
	return strings.TrimSuffix(l.Prefix, "/") + ".remodel-manifest.json"
}

// ManifestURL is the manifest's URL.
func (l Location) ManifestURL() string { return l.URL(l.ManifestKey()) }

// ShardManifestKey is the manifest's key of shard (as "shard-2-of-3") of
// a sharded job (migrate --shard i/n --to): beside the prefix too
// (orders/ has orders.shard-2-of-3.remodel-manifest.json).
func (l Location) ShardManifestKey(shard string) string {
	return strings.TrimSuffix(l.Prefix, "/") + "." + shard + ".remodel-manifest.json"
}

// ShardManifestURL is ShardManifestKey's URL.
func (l Location) ShardManifestURL(shard string) string {
	return l.URL(l.ShardManifestKey(shard))
}

// ClaimKey is the key of the claim object of a run (shard: "" for an
// unsharded one, as "shard-2-of-3" for a shard), beside the prefix as the
// manifests are (orders/ has orders.shard-2-of-3.remodel-claim.json): the
// run that created it writes the prefix's objects of that shard (or of
// the whole job) until it ends.
func (l Location) ClaimKey(shard string) string {
	if shard == "" {
		return strings.TrimSuffix(l.Prefix, "/") + ".remodel-claim.json"
	}
	return strings.TrimSuffix(l.Prefix, "/") + "." + shard + ".remodel-claim.json"
}

// ManifestsPrefix is what the keys of the job's manifests start with (the
// unsharded one and the shards'): the prefix without its slash, and a dot.
func (l Location) ManifestsPrefix() string {
	return strings.TrimSuffix(l.Prefix, "/") + "."
}

// The names of a sharded job's objects (under the prefix: the shard, the
// run's id and the object's number) and manifests (after ManifestsPrefix).
var (
	shardObject   = regexp.MustCompile(`^shard-([0-9]+)-of-([0-9]+)-[0-9a-f]{8}-[0-9]{6,}\.json(\.gz|\.zst)?$`)
	shardManifest = regexp.MustCompile(`^shard-([0-9]+)-of-([0-9]+)\.remodel-manifest\.json$`)
	shardClaim    = regexp.MustCompile(`^shard-([0-9]+)-of-([0-9]+)\.remodel-claim\.json$`)
)

// ShardOfClaim is the shard (i of n) whose claim has the name (the key
// after ManifestsPrefix); ok is false for any other name.
func ShardOfClaim(name string) (i, n int, ok bool) { return shardOf(shardClaim, name) }

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

// SplitConflict is the problem of a sharded job's manifests (shards[i]'s
// names the split plan digests[i]) that name more than one split plan; ""
// when they name one. Shards that cut the reads into different key ranges
// (the source changed between their snapshots, or they were given
// different --ranges) put the rows between differing boundaries in two
// shards' objects or in none.
func SplitConflict(shards, digests []string) string {
	groups := shardGroups(shards, digests, func(d string) string {
		if d == "" {
			return "no split plan (written before plans were recorded)"
		}
		return "split plan " + d[:min(len(d), 12)]
	})
	if groups == "" {
		return ""
	}
	return "the shards did not read one split of the source (" + groups + "): rows between their differing key range boundaries are in two shards' objects or in none (the source changed between the shards' snapshots, or they were given different --ranges); run the job again from an empty prefix, on a source that does not change while the shards start"
}

// JobName names a sharded job by its --job in messages ("no --job" for
// none); migrate names jobs so everywhere, the split plan item's and the
// lock's included.
func JobName(job string) string {
	if job == "" {
		return "no --job"
	}
	return "--job " + strconv.Quote(job)
}

// JobConflict is the problem of a sharded job's manifests (shards[i]'s
// names jobs[i], its --job) that name more than one --job; "" when they
// name one.
func JobConflict(shards, jobs []string) string {
	groups := shardGroups(shards, jobs, JobName)
	if groups == "" {
		return ""
	}
	return "the manifests are not one job's: their shards were given different --job (" + groups + "); run the job again from an empty prefix, with one --job for all its shards"
}

// shardGroups names the shards of each distinct value ("shard 1/3, 2/3: A;
// shard 3/3: B", each value named by name, in the order first seen); ""
// when the shards all have one value.
func shardGroups(shards, values []string, name func(string) string) string {
	var order []string
	by := map[string][]string{}
	for i, v := range values {
		if _, seen := by[v]; !seen {
			order = append(order, v)
		}
		by[v] = append(by[v], shards[i])
	}
	if len(order) < 2 {
		return ""
	}
	groups := make([]string, len(order))
	for i, v := range order {
		groups[i] = "shard " + strings.Join(by[v], ", ") + ": " + name(v)
	}
	return strings.Join(groups, "; ")
}
