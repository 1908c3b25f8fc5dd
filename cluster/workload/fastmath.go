package workload

import "math"

// lnTable holds ln(m) for m on a 1/lnTableSize grid of [0.5, 1], so that a unit exponential
// draw costs a table lookup instead of math.Log: sampling is the latency model's hot path.
const lnTableSize = 1024

var lnTable = func() [lnTableSize + 1]float64 {
	var t [lnTableSize + 1]float64
	for i := range t {
		t[i] = math.Log(0.5 + 0.5*float64(i)/lnTableSize)
	}
	return t
}()

// lnStep holds lnTable's differences, lnTable[i+1] − lnTable[i], the same values fastLn would
// compute: one lookup fewer keeps fastLn small enough to inline.
var lnStep = func() [lnTableSize]float64 {
	var d [lnTableSize]float64
	for i := range d {
		d[i] = lnTable[i+1] - lnTable[i]
	}
	return d
}()

// fastLn is ln(v) for v in (0, 1] with a relative error below 1e-7: v = m·2^e with m in
// [0.5, 1), ln v = e·ln 2 + ln m, ln m interpolated linearly in lnTable.
func fastLn(v float64) float64 {
	// v = m·2^e read off its bits, as math.Frexp would return them for a normal v (every v
	// here is at least 2^-32): Frexp's checks for zero, infinities and subnormals cost a call
	// and branches on every draw under WebAssembly.
	b := math.Float64bits(v)
	e := int(b>>52&0x7ff) - 1022
	m := math.Float64frombits(b&^(0x7ff<<52) | 1022<<52)
	// m < 1, so x < lnTableSize exactly (m − 0.5 is exact, and so is its product by a power
	// of two): i needs no clamp.
	x := (m - 0.5) * 2 * lnTableSize
	i := int(x)
	frac := x - float64(i)
	return float64(e)*math.Ln2 + lnTable[i] + frac*lnStep[i]
}
