package workload

import "math"

// lognormalClasses quantises a lognormal with σ = sigma (median 1) into k equal-probability
// bands and returns each band's conditional mean, normalised so that their average is 1.
// Band j covers standard-normal quantiles z_j = Φ⁻¹(j/k) to z_{j+1}; for X = e^{σZ},
// E[X | band] = k · e^{σ²/2} · (Φ(z_{j+1} − σ) − Φ(z_j − σ)). Using conditional means rather
// than band midpoints keeps the total rate exact.
func lognormalClasses(k int, sigma float64) []float64 {
	out := make([]float64, k)
	if sigma == 0 || k == 1 {
		for i := range out {
			out[i] = 1
		}
		return out
	}
	z := func(q float64) float64 {
		switch {
		case q <= 0:
			return math.Inf(-1)
		case q >= 1:
			return math.Inf(1)
		}
		return -math.Sqrt2 * math.Erfcinv(2*q)
	}
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	sum := 0.0
	for j := range out {
		lo, hi := z(float64(j)/float64(k)), z(float64(j+1)/float64(k))
		out[j] = float64(k) * (phi(hi-sigma) - phi(lo-sigma))
		sum += out[j]
	}
	for j := range out {
		out[j] *= float64(k) / sum
	}
	return out
}

// mix64 is the SplitMix64 finaliser, used to hash a partition index into its class.
func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// erlangC is the probability that an arrival to an M/M/c queue with utilisation rho waits
// (Erlang's C formula), computed with the stable recurrence for Erlang B.
func erlangC(c int, rho float64) float64 {
	if rho <= 0 {
		return 0
	}
	if rho >= 1 {
		return 1
	}
	a := rho * float64(c)
	b := 1.0 // Erlang B with 0 servers
	for n := 1; n <= c; n++ {
		b = a * b / (float64(n) + a*b)
	}
	return b / (1 - rho*(1-b))
}

// waitQuantile is the q-quantile of an M/M/c queue's waiting time with service time s and
// utilisation rho: 0 if the chance of waiting is at most 1 − q, else
// ln(C / (1 − q)) / (cμ − λ) (docs/model.md §6).
func waitQuantile(c int, rho, s, q float64) float64 {
	pw := erlangC(c, rho)
	if pw <= 1-q {
		return 0
	}
	return math.Log(pw/(1-q)) * s / (float64(c) * (1 - rho))
}
