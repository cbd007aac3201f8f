package migrate

import (
	"fmt"
	"io"
)

// writeS3Heading is the report's first line for a migration into S3
// (without its newline).
func (r *Report) writeS3Heading(w io.Writer) {
	s := r.S3
	switch {
	case r.OK && s.Import != nil:
		fmt.Fprintf(w, "migrated %s into S3 %s and imported it into DynamoDB table %s", r.Engine, s.URL, r.Table)
	case r.OK:
		fmt.Fprintf(w, "migrated %s into S3 %s (ImportTable objects for table %s)", r.Engine, s.URL, r.Table)
	case r.Interrupted:
		fmt.Fprintf(w, "migration of %s into S3 %s INTERRUPTED", r.Engine, s.URL)
	default:
		fmt.Fprintf(w, "migration of %s into S3 %s FAILED", r.Engine, s.URL)
	}
}

// writeS3Lines says what the objects hold, where the manifest is, what
// the import did, and how to go on from a run that stopped.
func (r *Report) writeS3Lines(w io.Writer) {
	s := r.S3
	fmt.Fprintf(w, "  %d objects (%s compressed), %d bytes stored, %d bytes of DynamoDB JSON\n", s.Objects, s.Compression, s.Bytes, s.Uncompressed)
	if s.ObjectsKept > 0 {
		fmt.Fprintf(w, "  %d objects of the interrupted runs kept as they were; %d items rendered again were found in them, not written again\n", s.ObjectsKept, s.ItemsFound)
	}
	if s.Manifest != "" {
		fmt.Fprintf(w, "  manifest: %s (objects, items, sizes, SHA-256, the table definition)\n", s.Manifest)
	}
	if i := s.Import; i != nil {
		fmt.Fprintf(w, "  ImportTable %s: %s, %d items processed, %d imported, %d errors, %d bytes processed\n", i.ARN, i.Status, i.ProcessedItems, i.ImportedItems, i.Errors, i.ProcessedBytes)
		if i.Failure != "" {
			fmt.Fprintf(w, "  import failure: %s\n", i.Failure)
		}
		if i.LogGroup != "" && (i.Errors > 0 || i.Status != "COMPLETED") {
			fmt.Fprintf(w, "  the failed items are in CloudWatch Logs group %s\n", i.LogGroup)
		}
		if i.TTL != "" {
			fmt.Fprintf(w, "  TTL enabled on %s\n", i.TTL)
		}
	}
	switch {
	case r.Partial && r.Checkpoint != "":
		fmt.Fprintf(w, "  the objects are partial: %d items are uploaded; the checkpoint %s records how far: migrate --resume --checkpoint %s --to %s continues (objects already uploaded are kept, not written again)\n", r.ItemsWritten, r.Checkpoint, r.Checkpoint, s.URL)
	case r.Partial:
		fmt.Fprintf(w, "  the objects are partial: %d items were uploaded; remove the objects under %s and migrate again\n", r.ItemsWritten, s.URL)
	}
}
