package lab

import (
	"slices"
	"strings"

	"github.com/kraftlab/kraftlab/cluster/scenario"
)

// AssumptionVariants returns the overrides that put the assumption named key at its low and
// high values on a scenario, exactly as RunSensitivity applies them. The lab page uses it to
// plan a sensitivity view whose runs it spreads over its own Web Workers.
func AssumptionVariants(doc []byte, key string) (low, high []Override, err error) {
	i := slices.IndexFunc(Assumptions, func(a Assumption) bool { return a.Key == key })
	if i < 0 {
		return nil, nil, inputErrorf("sensitivity: unknown assumption %q; assumptions: %s", key, strings.Join(AssumptionKeys(), ", "))
	}
	s, err := parseCluster(doc, "the lab runs cluster-mode scenarios")
	if err != nil {
		return nil, nil, err
	}
	if s.Cluster == nil {
		return nil, nil, &scenario.Error{Path: "mode", Msg: "the lab runs cluster-mode scenarios"}
	}
	low, high = Assumptions[i].variants(&s.Cluster.Spec)
	return low, high, nil
}
