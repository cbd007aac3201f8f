package analyze

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/pricing"
)

// TestBulkPutCost: the bulk put into an existing table is priced per GB
// of the table and its indexes when the price table gives bulk_put_gb,
// and otherwise said to be not priced, with the reason, in the load cost
// and the routes' summary (never a price made up).
func TestBulkPutCost(t *testing.T) {
	in := CostInput{TableWriteUnits: 1000, StoredBytes: 3 << 30, ImportBytes: 1 << 30, Rate: 1000, Items: 1000}
	c := Estimate(pricing.Default(), in)
	if c.Load.BulkPut != nil || !strings.Contains(c.Load.BulkPutNote, "not published") || c.Load.Routes.BulkPut != nil ||
		!strings.Contains(c.Load.Routes.Summary(), "--bulk-put) is not priced") {
		t.Errorf("without a price: %+v, %q", c.Load, c.Load.Routes.Summary())
	}
	p := pricing.Default()
	price := 0.1
	p.BulkPutGB = &price
	c = Estimate(p, in)
	want := c.Load.BulkPutGB * price
	if c.Load.BulkPut == nil || *c.Load.BulkPut != want || c.Load.BulkPutGB <= 0 || c.Load.BulkPutNote != "" ||
		c.Load.Routes.BulkPut == nil || *c.Load.Routes.BulkPut != want/1000*1e6 || !strings.Contains(c.Load.Routes.Summary(), "(--bulk-put) costs") {
		t.Errorf("with a price: %+v, %q", c.Load, c.Load.Routes.Summary())
	}
}
