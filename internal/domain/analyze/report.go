package analyze

import "github.com/remodel-dev/remodel/internal/domain/pricing"

// ReportVersion is the version of the Report's JSON shape; it changes when
// a field changes meaning or goes away (new fields may be added).
const ReportVersion = 1

// Report is the analysis of a mapping on the source's rows. Counts of items,
// bytes and partitions are of the rows analysed (all of them, or the
// sample); Totals and Cost are scaled to all rows when a sample was taken.
type Report struct {
	Version         int     `json:"version"`
	Table           string  `json:"table"`
	Engine          string  `json:"engine"`
	SnapshotWarning string  `json:"snapshot_warning,omitempty"`
	SampleRate      float64 `json:"sample_rate"` // 1: every row
	// RateLimit is the load's rate (write units per second into the table)
	// the partition checks and the provisioned cost use; 0: not given.
	RateLimit int64 `json:"rate_limit"`

	Entities []EntityStats `json:"entities"`
	// Sizes is the item size distribution over every entity.
	Sizes Sizes `json:"sizes"`
	// Indexes are the table itself (Kind "table") and then each
	// secondary index, in the mapping's order.
	Indexes []IndexStats `json:"indexes"`
	// Collections are the item collections (items of one table partition
	// key with their local index entries), when the table has a local index.
	Collections *Collections `json:"item_collections,omitempty"`
	Totals      Totals       `json:"totals"`
	Warnings    []Warning    `json:"warnings"`
	Cost        Cost         `json:"cost"`
}

// EntityStats is one entity's rows and items.
type EntityStats struct {
	Name       string        `json:"name"`
	Rows       int64         `json:"rows"`    // rows read
	Sampled    int64         `json:"sampled"` // rows analysed (Rows without a sample)
	Items      int64         `json:"items"`
	Rejected   int64         `json:"rejected"`
	Rejects    []RejectGroup `json:"rejects,omitempty"`
	Sizes      Sizes         `json:"sizes"`
	WriteUnits int64         `json:"write_units"` // of its puts into the table
}

// RejectGroup is the rows of an entity rejected for one kind of reason:
// reasons that differ only in their numbers are one kind.
type RejectGroup struct {
	Kind     string   `json:"kind"`   // the reason with its numbers as N
	Reason   string   `json:"reason"` // the first row's reason, in full
	Rows     int64    `json:"rows"`
	Examples []string `json:"examples"` // source keys of the first rows (at most 3)
}

// Sizes is a distribution of item sizes in bytes, as DynamoDB counts them
// (mapping.ItemSize). P50 and P99 are read from a histogram: exact below
// 1 KiB, at most 1.6% above the true value beyond; Max is exact.
type Sizes struct {
	Items int64   `json:"items"`
	Bytes int64   `json:"bytes"`
	Mean  float64 `json:"mean"`
	P50   int64   `json:"p50"`
	P99   int64   `json:"p99"`
	Max   int64   `json:"max"`
	// NearLimit counts items of 90% of DynamoDB's 400 KB or more.
	NearLimit int64 `json:"near_limit"`
}

// IndexStats is the table or one secondary index.
type IndexStats struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // table, global, local
	PK   string `json:"pk"`
	SK   string `json:"sk,omitempty"`
	// Projection is an index's: ALL, KEYS_ONLY or INCLUDE (a, b); empty
	// for the table.
	Projection string `json:"projection,omitempty"`
	// Items are the items in it (an index holds those with all its key
	// attributes); DataBytes their sizes as it holds them (an index entry
	// is the item's keys and the attributes it projects: all of them with
	// ALL); StoredBytes adds DynamoDB's 100 bytes per item; WriteUnits is
	// what writing them costs.
	Items       int64 `json:"items"`
	DataBytes   int64 `json:"data_bytes"`
	StoredBytes int64 `json:"stored_bytes"`
	WriteUnits  int64 `json:"write_units"`
	// Amplification is, for an index, its items and write units per item
	// and write unit put into the table.
	Amplification *Amplification `json:"amplification,omitempty"`
	Partitions    int64          `json:"partitions"`       // distinct partition key values
	Estimated     bool           `json:"estimated"`        // Partitions is a HyperLogLog estimate
	MeanItems     float64        `json:"mean_items"`       // items per partition
	ByItems       []Partition    `json:"largest_by_items"` // heaviest first
	ByBytes       []Partition    `json:"largest_by_bytes"`
	ByWriteUnits  []Partition    `json:"largest_by_write_units"`
	// PeakRate is the write units per second the partition with the most
	// write units receives during a load at RateLimit, if the load's writes
	// were spread evenly over time (0 without a rate); MaxRate is the load
	// rate (into the table) at which it receives PartitionWriteLimit. The
	// table's partitions take its local indexes' writes too: its
	// ByWriteUnits weights include them.
	PeakRate float64 `json:"peak_partition_rate,omitempty"`
	MaxRate  float64 `json:"max_load_rate"`
	// LongestRun is the longest run (by write units) of consecutive items
	// of one entity, in the order migrate reads them, with one partition
	// key value: while it is written the partition receives up to the
	// whole load rate (times WriteUnits/TableWriteUnits), for
	// TableWriteUnits / rate seconds.
	LongestRun *KeyRun `json:"longest_run,omitempty"`
}

// KeyRun is consecutive items with one partition key value.
type KeyRun struct {
	Key        string `json:"key"`
	Entity     string `json:"entity"`
	Items      int64  `json:"items"`
	WriteUnits int64  `json:"write_units"` // into this partition (the table's include its local indexes' writes)
	// TableWriteUnits are the write units of its items' puts into the table.
	TableWriteUnits int64 `json:"table_write_units"`
}

// Amplification is an index's writes per write into the table.
type Amplification struct {
	Items      float64 `json:"items"`
	WriteUnits float64 `json:"write_units"`
}

// Partition is one partition key value and its weight (items, bytes or
// write units). When more partitions exist than the analysis watches, the
// weight may be overstated by up to Error (the true weight is between
// Weight-Error and Weight).
type Partition struct {
	Key    string `json:"key"`
	Entity string `json:"entity"` // of its items' entities, the first in the mapping
	// Entities are the entities of its items, in the mapping's order (for
	// a partition the summary watched only lately: of the items since).
	Entities []string `json:"entities"`
	Weight   int64    `json:"weight"`
	Error    int64    `json:"error,omitempty"`
	Share    float64  `json:"share"` // of the index's total
	// StandsOut is true when the partition is far heavier than the mean
	// partition of its index: its weight, less what it may be overstated,
	// is at least StandOut times the mean (and it is not the index's only
	// partition). Renderings list only those.
	StandsOut bool `json:"stands_out"`
}

// Collections are the item collections of a table with a local index:
// each partition key value's items and local index entries, with
// DynamoDB's 100 bytes per item, against the 10 GB limit.
type Collections struct {
	Largest []Partition `json:"largest"`
	Limit   int64       `json:"limit"`
}

// Totals are what the load writes and the table stores, scaled to every
// row when a sample was taken (Scaled).
type Totals struct {
	Scaled          bool  `json:"scaled"`
	Items           int64 `json:"items"`
	Rejected        int64 `json:"rejected"`
	TableWriteUnits int64 `json:"table_write_units"`
	// WriteUnits adds every index's writes to the table's.
	WriteUnits int64 `json:"write_units"`
	// DataBytes is the items' size; StoredBytes is what DynamoDB bills:
	// the table and every index, with 100 bytes per item.
	DataBytes   int64 `json:"data_bytes"`
	StoredBytes int64 `json:"stored_bytes"`
	// ImportBytes is the uncompressed size of the items as DynamoDB JSON
	// import files (one {"Item": ...} line each).
	ImportBytes int64 `json:"import_bytes"`
}

// Warning is something in the data a reviewer should look at.
type Warning struct {
	Kind    string `json:"kind"` // hot-partition, low-cardinality, item-collection, item-size, rejects
	Index   string `json:"index,omitempty"`
	Entity  string `json:"entity,omitempty"`
	Message string `json:"message"`
}

// Cost is the money: the load three ways, a month of storage, and a month
// of the access patterns the user gave rates for (Options.Traffic).
type Cost struct {
	Prices      PriceRef      `json:"prices"`
	Load        LoadCost      `json:"load"`
	StorageGB   float64       `json:"storage_gb"`
	StorageCost StorageCost   `json:"storage_month"`
	Traffic     []PatternCost `json:"traffic_month,omitempty"`
}

// PriceRef says which price table the cost comes from.
type PriceRef struct {
	Region   string `json:"region"`
	Currency string `json:"currency"`
	Date     string `json:"date"`
	Source   string `json:"source"`
	File     string `json:"file,omitempty"`
	Note     string `json:"note,omitempty"`
}

// LoadCost is the cost of loading every item, Standard table class.
type LoadCost struct {
	// OnDemand: every write unit (table and indexes) as write request units.
	OnDemand float64 `json:"on_demand"`
	// Provisioned: the table provisioned at Rate write units per second
	// (plus what its local indexes take), each global index at the rate
	// its amplification gives, for the hours the load lasts (billed by
	// the started hour, at least one).
	Provisioned        float64 `json:"provisioned"`
	ProvisionedRate    int64   `json:"provisioned_rate"`
	ProvisionedHours   int64   `json:"provisioned_hours"`
	ProvisionedSeconds float64 `json:"provisioned_seconds"`
	ProvisionedWCU     int64   `json:"provisioned_wcu"` // table and global indexes together
	// Import: ImportTable from S3, priced per GB of uncompressed source
	// data (Totals.ImportBytes); it consumes no write units. The S3
	// storage and requests of the files are not counted.
	Import   float64 `json:"import"`
	ImportGB float64 `json:"import_gb"`
	// BulkPut: a bulk put from S3 into an existing table (migrate --to
	// s3://… --bulk-put), priced per GB the table and its indexes take
	// (BulkPutGB, the stored size) when the price table has a price for
	// it; nil, with BulkPutNote saying why, when it has none.
	BulkPut     *float64 `json:"bulk_put,omitempty"`
	BulkPutGB   float64  `json:"bulk_put_gb"`
	BulkPutNote string   `json:"bulk_put_note,omitempty"`
	// Routes compares the routes for any number of such items (nil when
	// there is none).
	Routes *Routes `json:"routes,omitempty"`
}

// The routes into the table: writes through the API, on-demand or
// provisioned, and ImportTable from S3 (migrate --to s3://… --import).
const (
	RouteOnDemand    = "on-demand"
	RouteProvisioned = "provisioned"
	RouteImport      = "S3 import"
)

// Routes prices the routes for items like these at any count.
type Routes struct {
	// The cost of a million such items each way (provisioned: once the
	// started hours are full, at the load's rate).
	OnDemand    float64 `json:"on_demand_per_million"`
	Provisioned float64 `json:"provisioned_per_million"`
	Import      float64 `json:"import_per_million"`
	// BulkPut is a million items by bulk put, when the price table prices
	// it (nil: not published; it is then in no comparison).
	BulkPut *float64 `json:"bulk_put_per_million,omitempty"`
	// ImportCheaperThanOnDemand holds at every size: both are priced per
	// item, with no fixed part.
	ImportCheaperThanOnDemand bool `json:"import_cheaper_than_on_demand"`
	// ImportDearerThanProvisionedFrom is the item count from which the
	// import costs more than provisioned capacity at the load's rate (it
	// is cheaper below it, where provisioned bills its first started
	// hour); 0: the import is cheaper at every size.
	ImportDearerThanProvisionedFrom int64 `json:"import_dearer_than_provisioned_from,omitempty"`
	// Cheapest is the cheapest route for this load: RouteOnDemand,
	// RouteProvisioned or RouteImport.
	Cheapest string `json:"cheapest"`
}

// StorageCost is a month of storing the table and its indexes.
type StorageCost struct {
	Standard   float64 `json:"standard"`
	StandardIA float64 `json:"standard_ia"`
}

func priceRef(p *pricing.Prices) PriceRef {
	return PriceRef{Region: p.Region, Currency: p.Currency, Date: p.Date, Source: p.Source, File: p.File, Note: p.Note}
}
