package lab

import (
	"errors"
	"strconv"
)

// maxDurationNs is the longest duration a plan accepts: 7 days, in nanoseconds.
const maxDurationNs = 7 * 24 * 3600 * 1e9

// parseDurationMs reads a non-negative Go duration (90s, 10m) as milliseconds, at most 7 days.
// It accepts exactly what time.ParseDuration accepts within that range, with the same value
// (TestParseDurationMsIsTimeParseDuration, FuzzParseDurationMs): signs, fractions, and the
// units ns, us, µs, μs, ms, s, m, h, the fraction rounded the way time's is. It is written out
// because time.ParseDuration, its unit table and error quoting, and Duration.String cost
// rehearse.wasm about 4 KB brotli (17 KB raw), the program nearest its size budget
// (docs/performance.md, "The edit loop").
func parseDurationMs(s string) (int64, error) {
	d, ok := parseDurationNs(s)
	if !ok {
		return 0, errors.New(strconv.Quote(s) + " is not a duration from 0 to 168h (such as 90s, 10m, 1h30m)")
	}
	return int64(d / 1e6), nil
}

// parseDurationNs is parseDurationMs in nanoseconds; false for text that is not a duration
// ([-+]?([0-9]*(\.[0-9]*)?[a-z]+)+, or "0") or one outside 0 to 7 days. A negative duration
// is outside, but -0s is 0, as in time.ParseDuration.
func parseDurationNs(s string) (uint64, bool) {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	if s == "0" {
		return 0, true
	}
	if s == "" {
		return 0, false
	}
	var d uint64
	for s != "" {
		// An integer part, a fraction, or both.
		var v uint64
		i := 0
		for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
			if v = v*10 + uint64(s[i]-'0'); v > maxDurationNs {
				return 0, false // too long in any unit
			}
		}
		digits := i > 0
		s = s[i:]
		var f uint64
		scale := 1.0
		if s != "" && s[0] == '.' {
			// time.ParseDuration's leadingFraction: digits past what a uint64 holds are read
			// and ignored.
			over := false
			for i = 1; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
				if over {
					continue
				}
				if f > (1<<63-1)/10 {
					over = true
					continue
				}
				y := f*10 + uint64(s[i]-'0')
				if y > 1<<63 {
					over = true
					continue
				}
				f, scale = y, scale*10
			}
			digits = digits || i > 1
			s = s[i:]
		}
		if !digits {
			return 0, false
		}
		// The unit: everything up to the next digit or dot.
		i = 0
		for ; i < len(s) && s[i] != '.' && (s[i] < '0' || s[i] > '9'); i++ {
		}
		var unit uint64
		switch s[:i] {
		case "ns":
			unit = 1
		case "us", "µs", "μs": // U+00B5 micro sign, U+03BC Greek mu
			unit = 1e3
		case "ms":
			unit = 1e6
		case "s":
			unit = 1e9
		case "m":
			unit = 60e9
		case "h":
			unit = 3600e9
		default:
			return 0, false
		}
		s = s[i:]
		if v > maxDurationNs/unit {
			return 0, false
		}
		v *= unit
		if f > 0 {
			// time.ParseDuration's own arithmetic, so that a fraction rounds the same.
			v += uint64(float64(f) * (float64(unit) / scale))
		}
		if d += v; d > maxDurationNs {
			return 0, false
		}
	}
	if neg && d > 0 {
		return 0, false
	}
	return d, true
}

// formatMs writes a duration of ms milliseconds as time.Duration's String does (1h30m0s,
// 1.5s, 500ms, 0s), without linking time's formatter (see parseDurationMs). TestFormatMs
// compares the two.
func formatMs(ms int64) string {
	if ms == 0 {
		return "0s"
	}
	var b []byte
	u := uint64(ms)
	if ms < 0 {
		b, u = append(b, '-'), -u
	}
	if u < 1000 {
		return string(append(strconv.AppendUint(b, u, 10), "ms"...))
	}
	sec, frac := u/1000, u%1000
	if h := sec / 3600; h > 0 {
		b = append(strconv.AppendUint(b, h, 10), 'h')
		b = append(strconv.AppendUint(b, sec/60%60, 10), 'm')
	} else if m := sec / 60; m > 0 {
		b = append(strconv.AppendUint(b, m, 10), 'm')
	}
	b = strconv.AppendUint(b, sec%60, 10)
	if frac > 0 {
		digits := []byte{'.', byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
		for digits[len(digits)-1] == '0' {
			digits = digits[:len(digits)-1]
		}
		b = append(b, digits...)
	}
	return string(append(b, 's'))
}
