package pricing

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParse: any input is a price table or an error, never a panic; a
// table it accepts has every price above 0 and reads back the same.
func FuzzParse(f *testing.F) {
	f.Add(string(defaultPrices))
	f.Add(`{}`)
	f.Add(`{"region": "x", "standard": {"wcu_hour": -1}}`)
	f.Add(strings.Replace(string(defaultPrices), "0.25", "1e400", 1))
	f.Add(strings.Replace(string(defaultPrices), "0.25", "NaN", 1))
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parse([]byte(s))
		if err != nil {
			return
		}
		for _, c := range []Class{p.Standard, p.StandardIA} {
			for _, v := range []float64{c.WriteRequestUnitsPerMillion, c.ReadRequestUnitsPerMillion, c.WCUHour, c.RCUHour, c.StorageGBMonth} {
				if !(v > 0) {
					t.Fatalf("accepted a price of %v", v)
				}
			}
		}
		if !(p.ImportGB > 0) || p.Region == "" || !dateRE.MatchString(p.Date) {
			t.Fatalf("accepted %+v", p)
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := parse(b)
		if err != nil || *q != *p {
			t.Fatalf("read back %+v, %v; want %+v", q, err, p)
		}
	})
}
