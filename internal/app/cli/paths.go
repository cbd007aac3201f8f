package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// files are the files a command reads and writes, each by the flag that
// names it. Before the command runs, check refuses a file it writes that is
// a file it reads or another file it writes: however spelt (./, .., an
// absolute path), through symbolic links, or as a hard link of it.
type files struct {
	reads, writes []namedFile
}

// namedFile is a file as a flag names it.
type namedFile struct {
	flag string      // the flag that names it, e.g. --rejects
	path string      // as given
	real string      // absolute, symbolic links followed (resolve)
	info os.FileInfo // nil when it does not exist (yet)
}

func newNamedFile(flag, path string) namedFile {
	f := namedFile{flag: flag, path: path, real: resolve(path)}
	if fi, err := os.Stat(path); err == nil {
		f.info = fi
	}
	return f
}

// read adds a file the command reads; "" names none.
func (fs *files) read(flag, path string) {
	if path != "" {
		fs.reads = append(fs.reads, newNamedFile(flag, path))
	}
}

// write adds a file the command writes (creates, replaces, appends to or
// removes); "" names none. Output on stdout is not a file: the caller
// leaves it out.
func (fs *files) write(flag, path string) {
	if path != "" {
		fs.writes = append(fs.writes, newNamedFile(flag, path))
	}
}

// check adds to c every file written that is another file written or a
// file read.
func (fs *files) check(c *checks) {
	for i, w := range fs.writes {
		for _, w2 := range fs.writes[i+1:] {
			if w.same(w2) {
				*c = append(*c, fmt.Sprintf("%s and %s name the same file (%s): choose two different files", w.flag, w2.flag, spellings(w, w2)))
			}
		}
		for _, r := range fs.reads {
			if w.same(r) {
				*c = append(*c, fmt.Sprintf("%s and %s name the same file (%s): %s would overwrite the file %s reads; choose another file", w.flag, r.flag, spellings(w, r), w.flag, r.flag))
			}
		}
	}
}

// same reports whether f and g are one file: the same resolved path, or,
// when both exist, the same file (a hard link, a case-insensitive file
// system).
func (f namedFile) same(g namedFile) bool {
	return f.real == g.real || f.info != nil && g.info != nil && os.SameFile(f.info, g.info)
}

// spellings is how f and g were given: "x" when alike, else "x = y".
func spellings(f, g namedFile) string {
	if f.path == g.path {
		return f.path
	}
	return f.path + " = " + g.path
}

// maxLinks bounds how many dangling symbolic links resolve follows.
const maxLinks = 40

// resolve is path absolute with its symbolic links followed: the file's, if
// it exists; else its directory's with its name appended, and when it is a
// dangling symbolic link, the file the link would create.
func resolve(path string) string {
	for range maxLinks {
		if r, err := filepath.EvalSymlinks(path); err == nil {
			return abs(r)
		}
		// filepath.Split, not Dir: Dir would clean link/.. lexically.
		dir, name := filepath.Split(path)
		if dir == "" {
			dir = "."
		}
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			dir = r
		}
		target, err := os.Readlink(filepath.Join(dir, name))
		if err != nil {
			return abs(filepath.Join(dir, name))
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		path = target
	}
	return abs(path)
}

// abs is path made absolute (as it is when the working directory is gone).
func abs(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return filepath.Clean(path)
}

// err is check's problems as a usage error, nil without any.
func (fs *files) err() error {
	var c checks
	fs.check(&c)
	return c.err()
}

// migrateFiles are the files migrate reads and writes: it reads the
// mapping, and writes the rejects file (on --resume the one the checkpoint
// names), the checkpoint (also read on --resume; by default named after
// the table: --table, else the mapping's table.name) and --output-file.
// rejectsGiven is whether --rejects was given (else it is its default).
func migrateFiles(m *migrate.Options, o *common, table string, rejectsGiven bool) *files {
	var fs files
	fs.read("--mapping", o.mapping)
	checkpoint, flag := m.CheckpointPath, "--checkpoint"
	if checkpoint == "" && !m.Null { // the null sink keeps no checkpoint
		if table == "" {
			table = mappingTable(o.mapping)
		}
		if table != "" {
			checkpoint, flag = defaultCheckpoint(table), "the default --checkpoint"
			if m.Shard.Sharded() {
				checkpoint = shardFile(checkpoint, m.Shard)
			}
		}
	}
	if m.Resume {
		fs.write("the checkpoint's rejects file", resumedRejects(checkpoint))
	} else if rejectsGiven {
		fs.write("--rejects", m.RejectsPath)
	} else {
		fs.write("the default --rejects", m.RejectsPath)
	}
	fs.write(flag, checkpoint)
	if checkpoint != "" {
		fs.write("the finished record of "+flag, migrate.FinishedPath(checkpoint))
	}
	o.out.writes(&fs)
	return &fs
}

// mappingTable is table.name of the mapping file, "" when it cannot be
// read (the command says why when it reads it).
func mappingTable(path string) string {
	f, err := mapping.ParseFile(path)
	if err != nil {
		return ""
	}
	return f.Table.Name.Value
}

// resumedRejects is the rejects file the checkpoint at path names, which
// migrate --resume appends to; "" when the checkpoint cannot be read
// (migrate --resume says why).
func resumedRejects(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var ck struct {
		RejectsFile string `json:"rejects_file"`
	}
	if json.Unmarshal(b, &ck) != nil {
		return ""
	}
	return ck.RejectsFile
}

// verifyFiles are the files verify reads (the mapping, --rejects) and
// writes (every --output-file).
func verifyFiles(o *common, rejects string) *files {
	var fs files
	fs.read("--mapping", o.mapping)
	fs.read("--rejects", rejects)
	o.out.writes(&fs)
	return &fs
}

// previewFiles are the files preview reads (the mapping, --prices,
// --traffic) and writes (--document, unless it is - for stdout).
func previewFiles(o *common, an *analyzeFlags, document string) *files {
	var fs files
	fs.read("--mapping", o.mapping)
	fs.read("--prices", an.prices)
	fs.read("--traffic", an.traffic)
	if document != "-" {
		fs.write("--document", document)
	}
	o.out.writes(&fs)
	return &fs
}

// exportFiles are the files export reads (the mapping) and writes
// (--output-file, unless it is - for stdout).
func exportFiles(o *common, out *outputFlags) *files {
	var fs files
	fs.read("--mapping", o.mapping)
	out.writes(&fs)
	return &fs
}
