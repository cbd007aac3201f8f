package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/migrate"
)

// checkpointOptions completes migrate's checkpoint options: the file
// (<table>.remodel-checkpoint.json by default), the mapping file's digest
// and the source's identity (no password), which --resume checks.
func checkpointOptions(m *migrate.Options, o *common) error {
	if m.CheckpointPath == "" {
		table := m.Table
		if table == "" {
			table = m.Plan.Table.Name
		}
		m.CheckpointPath = defaultCheckpoint(table)
		if m.Shard.Sharded() {
			m.CheckpointPath = shardFile(m.CheckpointPath, m.Shard)
		}
	}
	b, err := os.ReadFile(o.mapping)
	if err != nil {
		return fmt.Errorf("reading the mapping file: %w", err)
	}
	sum := sha256.Sum256(b)
	m.MappingDigest = hex.EncodeToString(sum[:])
	if m.SourceID, err = source.Identity(o.dsn()); err != nil {
		return err
	}
	return nil
}

// defaultCheckpoint is migrate's checkpoint file without --checkpoint.
func defaultCheckpoint(table string) string { return table + checkpointSuffix }

const checkpointSuffix = ".remodel-checkpoint.json"

// rejectsSuffix ends migrate's default rejects file, named after the table
// as the checkpoint is, so that migrations of two tables from one folder
// keep their rejects apart.
const rejectsSuffix = ".remodel-rejects.jsonl"

// defaultRejects is migrate's rejects file without --rejects:
// <table>.remodel-rejects.jsonl, table being --table or the mapping's
// table.name (remodel-rejects.jsonl when the mapping cannot be read: the
// command then says why it cannot run).
func defaultRejects(table, mappingPath string) string {
	if table == "" {
		table = mappingTable(mappingPath)
	}
	if table == "" {
		return "remodel-rejects.jsonl"
	}
	return table + rejectsSuffix
}

// shardFile is a default file name of a shard: the shard before the
// extension (before .remodel-checkpoint.json or .remodel-rejects.jsonl, as
// a table name may hold dots), as in shop.shard-2-of-3.remodel-checkpoint.json
// and shop.shard-2-of-3.remodel-rejects.jsonl.
func shardFile(path string, s migrate.Shard) string {
	ext := filepath.Ext(path)
	for _, suffix := range []string{checkpointSuffix, rejectsSuffix} {
		if strings.HasSuffix(path, suffix) {
			ext = suffix
		}
	}
	return strings.TrimSuffix(path, ext) + "." + s.FileSuffix() + ext
}
