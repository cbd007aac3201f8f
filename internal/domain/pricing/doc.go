// Package pricing owns DynamoDB's price table: the figures remodel's
// analysis turns write units, stored bytes and imported bytes into money
// with. One table is embedded (prices/us-east-1.json, with its date and the
// page it comes from); Load reads another in the same shape.
package pricing
