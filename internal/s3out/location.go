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
