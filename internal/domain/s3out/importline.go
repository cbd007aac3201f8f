package s3out

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ParseImportLine reads one line of ImportTable's DYNAMODB_JSON format,
// strictly as AWS documents it: an object with the one member "Item",
// whose members are attributes, each an object with exactly one type
// descriptor (S, N, B, BOOL, NULL, SS, NS, BS, L, M) and its value; N a
// number, B and BS base64, NULL true, sets not empty. Anything else is an
// error, not a guess.
func ParseImportLine(line []byte) (map[string]types.AttributeValue, error) {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var top map[string]json.RawMessage
	if err := d.Decode(&top); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	raw, ok := top["Item"]
	if !ok || len(top) != 1 {
		return nil, fmt.Errorf(`the line must be {"Item": {...}} and nothing else`)
	}
	var attrs map[string]json.RawMessage
	if err := json.Unmarshal(raw, &attrs); err != nil || attrs == nil {
		return nil, fmt.Errorf("the Item member is not an object of attributes")
	}
	item := make(map[string]types.AttributeValue, len(attrs))
	for name, v := range attrs {
		av, err := parseValue(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", name, err)
		}
		item[name] = av
	}
	return item, nil
}

func parseValue(raw json.RawMessage) (types.AttributeValue, error) {
	var v map[string]json.RawMessage
	if err := json.Unmarshal(raw, &v); err != nil || len(v) != 1 {
		return nil, fmt.Errorf("a value must be an object with one type descriptor")
	}
	for typ, x := range v {
		switch typ {
		case "S":
			var s string
			if err := json.Unmarshal(x, &s); err != nil {
				return nil, fmt.Errorf("type S: %w", err)
			}
			return &types.AttributeValueMemberS{Value: s}, nil
		case "N":
			n, err := number(x)
			if err != nil {
				return nil, err
			}
			return &types.AttributeValueMemberN{Value: n}, nil
		case "B":
			b, err := blob(x)
			if err != nil {
				return nil, err
			}
			return &types.AttributeValueMemberB{Value: b}, nil
		case "BOOL":
			var b bool
			if err := json.Unmarshal(x, &b); err != nil {
				return nil, fmt.Errorf("type BOOL: %w", err)
			}
			return &types.AttributeValueMemberBOOL{Value: b}, nil
		case "NULL":
			var b bool
			if err := json.Unmarshal(x, &b); err != nil || !b {
				return nil, fmt.Errorf("type NULL must be true")
			}
			return &types.AttributeValueMemberNULL{Value: true}, nil
		case "SS", "NS", "BS":
			var raws []json.RawMessage
			if err := json.Unmarshal(x, &raws); err != nil || len(raws) == 0 {
				return nil, fmt.Errorf("%s must be a list of at least one value", typ)
			}
			switch typ {
			case "SS":
				out := make([]string, len(raws))
				for i, r := range raws {
					if err := json.Unmarshal(r, &out[i]); err != nil {
						return nil, fmt.Errorf("type SS: %w", err)
					}
				}
				return &types.AttributeValueMemberSS{Value: out}, nil
			case "NS":
				out := make([]string, len(raws))
				for i, r := range raws {
					n, err := number(r)
					if err != nil {
						return nil, err
					}
					out[i] = n
				}
				return &types.AttributeValueMemberNS{Value: out}, nil
			default:
				out := make([][]byte, len(raws))
				for i, r := range raws {
					b, err := blob(r)
					if err != nil {
						return nil, err
					}
					out[i] = b
				}
				return &types.AttributeValueMemberBS{Value: out}, nil
			}
		case "L":
			var raws []json.RawMessage
			if err := json.Unmarshal(x, &raws); err != nil || raws == nil {
				return nil, fmt.Errorf("type L must be a list")
			}
			out := make([]types.AttributeValue, len(raws))
			for i, r := range raws {
				av, err := parseValue(r)
				if err != nil {
					return nil, fmt.Errorf("type L[%d]: %w", i, err)
				}
				out[i] = av
			}
			return &types.AttributeValueMemberL{Value: out}, nil
		case "M":
			var m map[string]json.RawMessage
			if err := json.Unmarshal(x, &m); err != nil || m == nil {
				return nil, fmt.Errorf("type M must be an object")
			}
			out := make(map[string]types.AttributeValue, len(m))
			for k, r := range m {
				av, err := parseValue(r)
				if err != nil {
					return nil, fmt.Errorf("type M.%s: %w", k, err)
				}
				out[k] = av
			}
			return &types.AttributeValueMemberM{Value: out}, nil
		default:
			return nil, fmt.Errorf("unknown type descriptor %q", typ)
		}
	}
	panic("unreachable")
}

// number reads N's value: a JSON string holding a number.
func number(x json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(x, &s); err != nil {
		return "", fmt.Errorf("type N must be a string: %w", err)
	}
	if _, ok := new(big.Rat).SetString(s); !ok || s == "" {
		return "", fmt.Errorf("type N %q is not a number", s)
	}
	return s, nil
}

func blob(x json.RawMessage) ([]byte, error) {
	var s string
	if err := json.Unmarshal(x, &s); err != nil {
		return nil, fmt.Errorf("type B must be a base64 string: %w", err)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("type B: %w", err)
	}
	return b, nil
}
