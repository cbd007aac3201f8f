package analyze

import "fmt"

// The figures of the analysis as its text report writes them; the
// modeling document (package document) writes them the same way.

// Percent writes a share (0.25) as the reports do: "25%", "2.5%", "0.025%".
func Percent(f float64) string {
	switch {
	case f >= 0.1:
		return fmt.Sprintf("%.0f%%", 100*f)
	case f >= 0.001:
		return fmt.Sprintf("%.1f%%", 100*f)
	}
	return fmt.Sprintf("%.2g%%", 100*f)
}

// Money writes dollars as the reports do: cents from 100 up, else 4 places.
func Money(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.4f", v)
}

// Seconds writes a duration in seconds as the reports do: "12.0 s",
// "3.5 min", "2.1 h".
func Seconds(s float64) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%.1f s", s)
	case s < 3600:
		return fmt.Sprintf("%.1f min", s/60)
	}
	return fmt.Sprintf("%.1f h", s/3600)
}
