package cli

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// remodelCtx runs the CLI with ctx and returns its exit status, stdout and stderr.
func remodelCtx(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(ctx, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// awsEnv gives the test DynamoDB Local's credentials and region, and keeps
// the machine's own AWS settings (profiles, endpoints, IMDS) out of it.
func awsEnv(t *testing.T) {
	t.Helper()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_SESSION_TOKEN": "",
		"AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "", "AWS_PROFILE": "",
		"AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_DYNAMODB": "",
		"AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull,
		"AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
}

// tinyMapping maps table items (id, k) to items keyed ITEM#{k}: a row
// whose k is NULL is rejected.
const tinyMapping = `version: 1
table:
  name: tiny
  key: {pk: PK}
entities:
  item:
    from: items
    pk: "ITEM#{k}"
access_patterns:
  byK:
    query: {pk: "ITEM#{k}"}
    sql: SELECT * FROM items WHERE k = {k}
`

// tiny makes a fresh database of the engine with three rows in items and
// returns its DSN and the path of tinyMapping.
func tiny(t *testing.T, eng string) (dsn, mappingPath string) {
	t.Helper()
	for _, e := range testenv.Engines {
		if e.Name == eng {
			dsn = e.Fresh(t)
			e.Exec(t, dsn, "CREATE TABLE items (id INT PRIMARY KEY, k VARCHAR(20)); INSERT INTO items VALUES (1, 'a'), (2, 'b'), (3, 'c');")
		}
	}
	return dsn, writeFile(t, "tiny.yaml", tinyMapping)
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// hangingServer accepts connections and never answers; seen is closed when
// the first connection arrives.
func hangingServer(t *testing.T) (addr string, seen <-chan struct{}) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{})
	done := make(chan struct{})
	go func() {
		first := true
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
			close(done)
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			go func() { _, _ = io.Copy(io.Discard, c) }()
			if first {
				first = false
				close(ch)
			}
		}
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return l.Addr().String(), ch
}
