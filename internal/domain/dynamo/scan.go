package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"
)

// Scan segments: DynamoDB Local reads a segment in time that grows faster
// than its size (a 204 584-item table took 143 s in 4 segments, 45 s in
// 16, 26 s in 256 of about 800 items each), and for DynamoDB a segment more
// is a request more. So a table is cut into segments of about
// scanSegmentItems items by its item count, at least minScanSegments and at
// most maxScanSegments, read scanWorkers at a time.
const (
	scanSegmentItems = 1000
	minScanSegments  = 4
	maxScanSegments  = 4096
	scanWorkers      = 8
)

// ScanSegments is how many segments the Scan of a table of about n items
// uses (n from DescribeTable's ItemCount, which DynamoDB updates only every
// few hours, or from what the caller knows it wrote).
func ScanSegments(n int64) int {
	return int(max(minScanSegments, min(maxScanSegments, n/scanSegmentItems)))
}

// ScanAll scans the table of in (its other fields kept: projection,
// filter, Select) in ScanSegments(items) parallel segments with
// consistent reads, a few segments at a time, and calls page for every
// page, from several goroutines. The first error stops the scan and is
// returned unwrapped.
func ScanAll(ctx context.Context, db dynamodb.ScanAPIClient, in dynamodb.ScanInput, items int64, page func(*dynamodb.ScanOutput) error, optFns ...func(*dynamodb.Options)) error {
	segments := ScanSegments(items)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(scanWorkers)
	for seg := range segments {
		g.Go(func() error {
			in := in
			in.Segment, in.TotalSegments = aws.Int32(int32(seg)), aws.Int32(int32(segments))
			in.ConsistentRead = aws.Bool(true)
			p := dynamodb.NewScanPaginator(db, &in)
			for p.HasMorePages() {
				out, err := p.NextPage(gctx, optFns...)
				if err != nil {
					return err
				}
				if err := page(out); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}
