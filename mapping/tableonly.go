package mapping

// TableOf checks a parsed mapping without a source schema, as Check does,
// and returns its DynamoDB table: keys, indexes, billing and TTL, which
// need no source. For exports of the table definition alone.
func TableOf(f *File) (*Table, error) {
	if err := Check(f); err != nil {
		return nil, err
	}
	c := &compiler{f: f, plan: &Plan{File: f}}
	c.table()
	t := c.plan.Table
	return &t, nil
}
