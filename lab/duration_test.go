package lab

import (
	"strings"
	"testing"
	"time"
)

// timeDurationMs is what parseDurationMs stands in for: time.ParseDuration, refused outside
// 0 to 7 days, in milliseconds.
func timeDurationMs(s string) (int64, bool) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > 7*24*time.Hour {
		return 0, false
	}
	return d.Milliseconds(), true
}

// durationTexts are texts near every rule of Go's duration syntax and the 7-day bound.
func durationTexts() []string {
	texts := []string{
		"", "0", "-0", "+0", "00", "0s", "-0s", "+0s", "-0.0h", "-1ms", "-1ns", "+90s", ".", "s", "1", "1.", ".5",
		"1.s", ".5s", "1.5.5s", "1..5s", "1h-1m", "1h+1m", "1 h", " 1h", "1h ", "1H", "1hh", "1e3s", "0x10s",
		"1µs", "1μs", "1us", "1ns", "1ms", "1s", "1m", "1h", "1d", "1w", "1sec", "µs", "1µ", "1\xb5s",
		"90s", "10m", "1h30m", "1h30m15.25s", "2h45m0.5s", "1.5h", "0.1s", "0.001s", "0.0015s", "0.9999999s",
		"999999ns", "1000000ns", "1999999ns", "1.999999ms", "0.000999999s",
		"168h", "168h0ns", "168h1ns", "167h59m59.999999999s", "167h59m59.9999999999999999999s",
		"604800s", "604800.000000001s", "604800000ms", "604800000000000ns", "604800000000001ns",
		"10080m", "10080.0000001m", "7.0000000000000001h", "168.00000000000001h",
		"9223372036854775807ns", "9223372036854775808ns", "99999999999999999999h", "1.99999999999999999999999s",
		"0.3333333333333333333333333333h", ".60180000000000000h", "0.1234567890123456789012345m", "3.0000000001ms", "12.345678901234567890123ms",
		"1m1m1m1m", "1h1h1h1h1h1h1h1h", "23h59m59s999ms", "1.h", ".1h", "00000000000000000000001s",
	}
	var out []string
	for _, s := range texts {
		out = append(out, s, "-"+s, strings.ToUpper(s))
	}
	return out
}

// parseDurationMs takes exactly the durations time.ParseDuration takes from 0 to 7 days, to
// the same millisecond, and says what it wants of any other text.
func TestParseDurationMsIsTimeParseDuration(t *testing.T) {
	texts := durationTexts()
	for _, u := range []string{"ns", "us", "µs", "ms", "s", "m", "h"} {
		for _, n := range []string{"1", "7", "59", "60", "168", "1000", "123456789", "0.5", "2.25", "0.0001", "1.000001", "10081", "604801"} {
			texts = append(texts, n+u, n+u+"1s", "1h"+n+u)
		}
	}
	for _, s := range texts {
		checkDuration(t, s)
	}
	if _, err := parseDurationMs("ten"); err == nil || err.Error() != `"ten" is not a duration from 0 to 168h (such as 90s, 10m, 1h30m)` {
		t.Errorf("error %v", err)
	}
}

func checkDuration(t *testing.T, s string) {
	t.Helper()
	want, wantOK := timeDurationMs(s)
	got, err := parseDurationMs(s)
	if (err == nil) != wantOK || got != want {
		t.Errorf("%q: got %d, %v; time.ParseDuration gives %d (accepted %v)", s, got, err, want, wantOK)
	}
}

// `make fuzz` runs it: go test ./lab -run '^$' -fuzz FuzzParseDurationMs -fuzztime 60s
func FuzzParseDurationMs(f *testing.F) {
	for _, s := range durationTexts() {
		f.Add(s)
	}
	f.Fuzz(checkDuration)
}

// formatMs writes what time.Duration's String writes, for whole milliseconds.
func TestFormatMs(t *testing.T) {
	var ms []int64
	for i := int64(0); i <= 200_000; i += 7 {
		ms = append(ms, i, -i)
	}
	for _, m := range []int64{1, 999, 1000, 1001, 1010, 1100, 59_999, 60_000, 60_001, 3_599_999, 3_600_000, 3_600_001,
		5_400_000, 86_400_000, 604_800_000, 604_800_001, 9_223_372_036_854} {
		ms = append(ms, m, -m)
	}
	for _, m := range ms {
		if got, want := formatMs(m), (time.Duration(m) * time.Millisecond).String(); got != want {
			t.Errorf("%d ms: %q, want %q", m, got, want)
		}
	}
}
