package migrate

import (
	"encoding/json"
	"os"
)

// ResealCheckpoint recomputes the checksum of the checkpoint at path, as
// someone who edited it by hand could (a forged checkpoint), for the
// tests of package migrate_test.
func ResealCheckpoint(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var ck checkpointFile
	if err := json.Unmarshal(b, &ck); err != nil {
		return err
	}
	if ck.Checksum, err = ck.checksum(); err != nil {
		return err
	}
	if b, err = ck.encode(); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
