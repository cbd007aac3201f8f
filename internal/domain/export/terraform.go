package export

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/remodel-dev/remodel/mapping"
)

// Terraform writes the mapping's table as a Terraform aws_dynamodb_table
// resource, formatted as terraform fmt would. Multi-attribute index keys
// are refused: the AWS provider's arguments for them are not settled.
func Terraform(w io.Writer, t *mapping.Table, o Options) error {
	for _, ix := range t.Indexes {
		if len(ix.PK) > 1 || len(ix.SK) > 1 {
			return fmt.Errorf("export: index %s has a multi-attribute key (%s / %s), which the Terraform export does not write: use --output cloudformation", ix.Name, mapping.KeyNames(ix.PK), mapping.KeyNames(ix.SK))
		}
	}
	name := t.Name
	if o.TableName != "" {
		name = o.TableName
	}
	b := bufio.NewWriter(w)
	desc := "DynamoDB table " + name
	if o.MappingFile != "" {
		desc += " of the remodel mapping " + o.MappingFile
	}
	fmt.Fprintf(b, "# %s\n", strings.ReplaceAll(desc, "\n", " "))
	fmt.Fprintf(b, "resource \"aws_dynamodb_table\" %s {\n", hclString(resourceLabel(name)))
	top := []kv{{"name", hclString(name)}}
	if t.Billing.Provisioned {
		top = append(top, kv{"billing_mode", `"PROVISIONED"`},
			kv{"read_capacity", strconv.FormatInt(t.Billing.Read, 10)},
			kv{"write_capacity", strconv.FormatInt(t.Billing.Write, 10)})
	} else {
		top = append(top, kv{"billing_mode", `"PAY_PER_REQUEST"`})
	}
	top = append(top, kv{"hash_key", hclString(t.PK.Name)})
	if t.SK != nil {
		top = append(top, kv{"range_key", hclString(t.SK.Name)})
	}
	writeKVs(b, "  ", top)
	defs := t.KeyTypes()
	for _, n := range slices.Sorted(maps.Keys(defs)) {
		block(b, "attribute", []kv{{"name", hclString(n)}, {"type", hclString(defs[n])}})
	}
	for _, ix := range t.Indexes {
		kvs := []kv{{"name", hclString(ix.Name)}}
		if ix.Local {
			kvs = append(kvs, kv{"range_key", hclString(ix.SK[0].Name)})
			kvs = append(kvs, hclProjection(ix)...)
			block(b, "local_secondary_index", kvs)
			continue
		}
		kvs = append(kvs, kv{"hash_key", hclString(ix.PK[0].Name)})
		if len(ix.SK) > 0 {
			kvs = append(kvs, kv{"range_key", hclString(ix.SK[0].Name)})
		}
		kvs = append(kvs, hclProjection(ix)...)
		if t.Billing.Provisioned {
			kvs = append(kvs, kv{"read_capacity", strconv.FormatInt(t.Billing.Read, 10)}, kv{"write_capacity", strconv.FormatInt(t.Billing.Write, 10)})
		}
		block(b, "global_secondary_index", kvs)
	}
	if t.TTL != "" {
		block(b, "ttl", []kv{{"attribute_name", hclString(t.TTL)}, {"enabled", "true"}})
	}
	fmt.Fprintln(b, "}")
	return b.Flush()
}

type kv struct{ k, v string }

// hclProjection is an index block's projection_type and, for INCLUDE,
// its non_key_attributes.
func hclProjection(ix *mapping.Index) []kv {
	p := projection(ix)
	kvs := []kv{{"projection_type", hclString(p.ProjectionType)}}
	if len(p.NonKeyAttributes) > 0 {
		attrs := make([]string, len(p.NonKeyAttributes))
		for i, a := range p.NonKeyAttributes {
			attrs[i] = hclString(a)
		}
		kvs = append(kvs, kv{"non_key_attributes", "[" + strings.Join(attrs, ", ") + "]"})
	}
	return kvs
}

func block(b *bufio.Writer, name string, kvs []kv) {
	fmt.Fprintf(b, "\n  %s {\n", name)
	writeKVs(b, "    ", kvs)
	fmt.Fprintln(b, "  }")
}

// writeKVs writes attribute lines with their = aligned, as terraform fmt does.
func writeKVs(b *bufio.Writer, indent string, kvs []kv) {
	width := 0
	for _, p := range kvs {
		width = max(width, len(p.k))
	}
	for _, p := range kvs {
		fmt.Fprintf(b, "%s%-*s = %s\n", indent, width, p.k, p.v)
	}
}

var labelChars = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// resourceLabel is a Terraform resource name for the table: letters,
// digits, _ and -, starting with a letter or _.
func resourceLabel(name string) string {
	l := labelChars.ReplaceAllString(name, "_")
	if l == "" || !(l[0] == '_' || (l[0] >= 'a' && l[0] <= 'z') || (l[0] >= 'A' && l[0] <= 'Z')) {
		l = "_" + l
	}
	return l
}

// hclString quotes s as an HCL string literal, escaping the template
// sequences ${ and %{.
func hclString(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\r':
			sb.WriteString(`\r`)
		case c == '\t':
			sb.WriteString(`\t`)
		case c < 0x20:
			fmt.Fprintf(&sb, `\u%04x`, c)
		case (c == '$' || c == '%') && i+1 < len(s) && s[i+1] == '{':
			sb.WriteByte(c)
			sb.WriteByte(c)
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}
