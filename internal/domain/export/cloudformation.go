package export

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/remodel-dev/remodel/mapping"
)

// Template is a CloudFormation template with one AWS::DynamoDB::Table.
type Template struct {
	AWSTemplateFormatVersion string
	Description              string
	Resources                map[string]Resource
	Outputs                  map[string]Output
}

// Resource is the table resource.
type Resource struct {
	Type       string
	Properties TableProperties
}

// Output is one output of the template.
type Output struct {
	Description string
	Value       map[string]any
}

// TableProperties are the properties of AWS::DynamoDB::Table that a
// mapping decides; the names are CloudFormation's.
type TableProperties struct {
	TableName               string
	BillingMode             string
	AttributeDefinitions    []AttributeDefinition
	KeySchema               []KeySchemaElement
	ProvisionedThroughput   *Throughput              `json:",omitempty"`
	GlobalSecondaryIndexes  []GlobalSecondaryIndex   `json:",omitempty"`
	LocalSecondaryIndexes   []LocalSecondaryIndex    `json:",omitempty"`
	TimeToLiveSpecification *TimeToLiveSpecification `json:",omitempty"`
}

// AttributeDefinition is a key attribute and its type.
type AttributeDefinition struct {
	AttributeName string
	AttributeType string
}

// KeySchemaElement is one key attribute: HASH or RANGE.
type KeySchemaElement struct {
	AttributeName string
	KeyType       string
}

// Throughput is provisioned capacity.
type Throughput struct {
	ReadCapacityUnits  int64
	WriteCapacityUnits int64
}

// Projection says which attributes an index holds: ALL, KEYS_ONLY, or
// INCLUDE with the NonKeyAttributes.
type Projection struct {
	ProjectionType   string
	NonKeyAttributes []string `json:",omitempty"`
}

// projection is the index's projection as the exports write it.
func projection(ix *mapping.Index) Projection {
	p := ix.DynamoDBProjection()
	return Projection{ProjectionType: string(p.ProjectionType), NonKeyAttributes: p.NonKeyAttributes}
}

// GlobalSecondaryIndex is one global index.
type GlobalSecondaryIndex struct {
	IndexName             string
	KeySchema             []KeySchemaElement
	Projection            Projection
	ProvisionedThroughput *Throughput `json:",omitempty"`
}

// LocalSecondaryIndex is one local index.
type LocalSecondaryIndex struct {
	IndexName  string
	KeySchema  []KeySchemaElement
	Projection Projection
}

// TimeToLiveSpecification turns TTL on.
type TimeToLiveSpecification struct {
	AttributeName string
	Enabled       bool
}

// Options are what every export may be given.
type Options struct {
	// TableName replaces the mapping's table name ("" keeps it).
	TableName string
	// MappingFile names the mapping in descriptions.
	MappingFile string
}

func keySchema(pk, sk []mapping.KeyAttr) []KeySchemaElement {
	var out []KeySchemaElement
	for _, k := range pk {
		out = append(out, KeySchemaElement{k.Name, "HASH"})
	}
	for _, k := range sk {
		out = append(out, KeySchemaElement{k.Name, "RANGE"})
	}
	return out
}

func tableKey(t *mapping.Table) (pk, sk []mapping.KeyAttr) {
	if t.SK != nil {
		sk = []mapping.KeyAttr{*t.SK}
	}
	return []mapping.KeyAttr{t.PK}, sk
}

var logicalIDChars = regexp.MustCompile(`[^A-Za-z0-9]`)

// logicalID makes the resource's logical id from the table name: letters
// and digits only, starting with a letter.
func logicalID(name string) string {
	id := logicalIDChars.ReplaceAllString(name, "")
	if id == "" || id[0] < 'A' || (id[0] > 'Z' && id[0] < 'a') || id[0] > 'z' {
		id = "Table" + id
	}
	return strings.ToUpper(id[:1]) + id[1:] + "Table"
}

// CloudFormationTemplate returns the template of the mapping's table.
func CloudFormationTemplate(t *mapping.Table, o Options) *Template {
	name := t.Name
	if o.TableName != "" {
		name = o.TableName
	}
	p := TableProperties{TableName: name, BillingMode: "PAY_PER_REQUEST", KeySchema: keySchema(tableKey(t))}
	var tp *Throughput
	if t.Billing.Provisioned {
		p.BillingMode = "PROVISIONED"
		tp = &Throughput{ReadCapacityUnits: t.Billing.Read, WriteCapacityUnits: t.Billing.Write}
		p.ProvisionedThroughput = tp
	}
	defs := t.KeyTypes()
	for _, n := range slices.Sorted(maps.Keys(defs)) {
		p.AttributeDefinitions = append(p.AttributeDefinitions, AttributeDefinition{n, defs[n]})
	}
	for _, ix := range t.Indexes {
		if ix.Local {
			p.LocalSecondaryIndexes = append(p.LocalSecondaryIndexes, LocalSecondaryIndex{IndexName: ix.Name, KeySchema: keySchema(ix.PK, ix.SK), Projection: projection(ix)})
			continue
		}
		p.GlobalSecondaryIndexes = append(p.GlobalSecondaryIndexes, GlobalSecondaryIndex{IndexName: ix.Name, KeySchema: keySchema(ix.PK, ix.SK), Projection: projection(ix), ProvisionedThroughput: tp})
	}
	if t.TTL != "" {
		p.TimeToLiveSpecification = &TimeToLiveSpecification{AttributeName: t.TTL, Enabled: true}
	}
	id := logicalID(name)
	desc := "DynamoDB table " + name
	if o.MappingFile != "" {
		desc += " of the remodel mapping " + o.MappingFile
	}
	return &Template{
		AWSTemplateFormatVersion: "2010-09-09",
		Description:              desc,
		Resources:                map[string]Resource{id: {Type: "AWS::DynamoDB::Table", Properties: p}},
		Outputs: map[string]Output{
			"TableName": {Description: "the table's name", Value: map[string]any{"Ref": id}},
			"TableArn":  {Description: "the table's ARN", Value: map[string]any{"Fn::GetAtt": []string{id, "Arn"}}},
		},
	}
}

// CloudFormation writes the template of the mapping's table as JSON.
func CloudFormation(w io.Writer, t *mapping.Table, o Options) error {
	return writeJSON(w, CloudFormationTemplate(t, o))
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}
